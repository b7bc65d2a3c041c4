#pragma once
// The warning Open gives when the sampler's batches mix the file's classes much less than a
// random order's would (sampler/label_mixing.h): a file stored sorted by label (written by
// walking class folders in order), read by chunks:W or quasi:W with a window too small for
// it. Training on such batches goes wrong without any error, so it is said once, at Open,
// with what to do.

#include <cstdint>
#include <span>

#include "h5feed/loader_options.h"
#include "index/dataset_index.h"

namespace h5feed::loader {

// Whether Open measures label mixing: LoaderOptions::check_label_mixing is on, the sampler
// shuffles within windows (chunks:W, quasi:W) and the file has labels. `sequential` is file
// order by request (for evaluation, where batches need not mix); `random` is the reference
// itself; a file without labels (self-supervised data) has nothing to mix.
bool ChecksLabelMixing(const LoaderOptions& options, const index::DatasetIndex& dataset);

// Measures `order` (this rank's order of epoch 0 under options.sampler) on dataset.labels and,
// when its batches mix too few classes (MixesTooFewClasses), warns through Warn: the figures,
// what they mean, and what to do (`h5feed rechunk --seed 0`, or the window that mixes, with
// its cache). Nothing when the rows hold fewer than two labels (a file without labels reads
// as all 0), or for files of more than LabelMixingMeter::kMaxRows rows. Costs about one
// epoch order's computation, and a search of windows when it warns (docs/reader.md, "Label
// mixing").
void WarnIfLabelsUnmixed(const LoaderOptions& options, const index::DatasetIndex& dataset,
                         std::span<const int64_t> order);

}  // namespace h5feed::loader
