#pragma once
// DescribeLabelOrder: how a file stores its rows by label (LabelOrder, h5feed/file_summary.h),
// from the labels in stored order, as `h5feed inspect` reports it. The loader measures the
// batches of its sampler for the same reason (sampler/label_mixing.h); this is the file's
// side of it, independent of any sampler.

#include <cstdint>
#include <optional>
#include <span>

#include "h5feed/file_summary.h"

namespace h5feed::summary {

// The order of `labels` (one per row, in stored order); nullopt with fewer than two distinct
// labels (nothing to mix). O(N) time, O(classes) memory.
std::optional<LabelOrder> DescribeLabelOrder(std::span<const int64_t> labels);

}  // namespace h5feed::summary
