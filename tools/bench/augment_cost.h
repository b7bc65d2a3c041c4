#pragma once
// What an augmentation costs on the CPU, measured in the same run as the benchmark it
// explains: the transform alone (crop, resize, flip, normalize to float32 NCHW, as the loader
// runs it: pipeline::NormalizeBatch with the view's spec) over one batch of the file's own
// images already in memory, on the reader's threads. Its images/s is the most a loader doing
// that augmentation on the CPU delivers on this machine, whatever it reads; `h5feed bench
// --augment` reports the fraction its run reached. For a file of images at their own size the
// transform starts from each image's stored bytes: the crop (a JPEG decoded where it reads, as
// the loader's gather does it), then the flip and the normalization.

#include <cstdint>
#include <string>

#include "h5feed/output_options.h"

namespace h5feed::bench {

struct AugmentCost {
  double images_per_s = 0;     // the transform alone, on `threads` threads
  double output_mb_per_s = 0;  // of float32 delivered (MB = 10^6 bytes)
  int64_t out_height = 0;
  int64_t out_width = 0;
  int64_t channels = 0;
  int threads = 1;
};

// Reads the first `batch` images of `path` (a sequential epoch of a loader; of its dataset
// `images_dataset`, "" for the default one), then transforms
// them over and over (each round another epoch's draws) for about `seconds`. Throws what
// Loader::Open and the transform's checks throw.
AugmentCost MeasureAugmentCost(const std::string& path, const std::string& images_dataset,
                               const AugmentOptions& augment, int threads, int64_t batch,
                               uint64_t seed, double seconds = 1.0);

}  // namespace h5feed::bench
