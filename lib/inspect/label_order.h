#pragma once
// How a file stores its rows by label, as `h5feed inspect` reports it: in runs of one label
// (class-sorted, as a walk of class folders writes them) or mixed. A class-sorted file read by
// a chunk-aware sampler (chunks:W) gets batches of a few classes; the loader measures that for
// its sampler and warns (sampler/label_mixing.h). This is the file's side of it, independent
// of any sampler: how many runs of one label the stored order has, against a random order's.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace h5feed::inspect {

struct LabelOrder {
  // "sorted": each label one run, labels ascending (class after class).
  // "grouped": each label one run, in another order.
  // "clustered": fewer than a quarter of a random order's runs (long runs of one label, e.g.
  //   several class-sorted parts concatenated).
  // "mixed": anything else (a shuffled file has about random_runs).
  std::string order;
  int64_t runs = 0;     // maximal runs of consecutive rows with one label
  int64_t classes = 0;  // distinct labels
  // The expected runs of a random order of the same labels: N - sum n_c (n_c - 1) / N, for
  // n_c rows of label c (each of the N - 1 neighbours differs unless both have one label).
  double random_runs = 0;

  // "sorted by label", "grouped by label", "clustered by label", "mixed".
  std::string Describe() const;
  // Whether a chunk-aware sampler's batches are likely to hold few classes: sorted, grouped
  // or clustered.
  bool InRuns() const { return order != "mixed"; }
};

// The order of `labels` (one per row, in stored order); nullopt with fewer than two distinct
// labels (nothing to mix). O(N) time, O(classes) memory.
std::optional<LabelOrder> DescribeLabelOrder(std::span<const int64_t> labels);

}  // namespace h5feed::inspect
