#pragma once
// The checks Loader::Open makes before allocating anything: options out of range, and options
// that do not fit the dataset (a batch larger than a rank's share). Each failure is an
// Error(kInvalidArgument) naming the option, its value and the accepted range. (Normalizing
// images with more channels than mean and std give is refused by MakeNormalizeParams.)

#include <cstdint>
#include <string>

#include "h5feed/loader_options.h"

namespace h5feed::loader {

// Options alone (no file needed).
void CheckOptions(const LoaderOptions& options);

// Options against the opened dataset: `samples_per_rank` is SamplesPerRank of its geometry.
void CheckOptionsForDataset(const LoaderOptions& options, const std::string& path,
                            int64_t samples_per_rank);

}  // namespace h5feed::loader
