#pragma once
// Which settings `h5feed bench sweep` recommends, and by how much they beat h5feed's defaults
// and the `random` sampler. Pure arithmetic on finished rows, so it is unit-tested from fixed
// rows.
//
// The rule: among the h5feed runs that did not fail, whose shuffle quality is at least
// `min_shuffle_quality` (a share of the random sampler's: 1 = as random as a global shuffle)
// and whose batches do not mix too few classes (SweepRow::few_classes, the loader's label
// mixing bar), take the highest images/s. Runs within `tie_share` of that rate are ties (the
// machine's noise is larger than their difference); among ties the highest shuffle quality wins,
// then the smallest cache. When no run qualifies, the most random run (among those that mix the
// classes, if any do) is recommended and the text says the bar was missed.
//
// A file that does not fit the page cache (SweepRow::fits_page_cache "no") is read from disk in
// every epoch once the cache has evicted it, which a short run on a warm file does not show: a
// run on a file that fits is preferred to a faster one on a file that does not when its rate is
// within `page_cache_share` of it, and the text says so.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sweep_row.h"

namespace h5feed::bench {

struct RecommendOptions {
  double min_shuffle_quality = 0.9;
  double tie_share = 0.03;
  double page_cache_share = 0.30;
};

struct Recommendation {
  std::optional<size_t> best;      // index into the rows
  std::optional<size_t> defaults;  // the defaults run
  // The `random` sampler on best's file and cache: what the same settings cost with a true
  // shuffle.
  std::optional<size_t> random;
  std::optional<size_t> fastest_random;  // the fastest `random` run of any settings
  std::optional<size_t> best_reference;  // the fastest DataLoader + h5py loader
  bool quality_met = false;              // best reached min_shuffle_quality and mixes the classes
  // The faster run passed over because its file does not fit the page cache and best's does.
  std::optional<size_t> beyond_page_cache;
  // The input file's size, MiB, which the text compares best's file with (set by the caller;
  // not measured: no comparison).
  double input_file_mib = kNotMeasured;
};

Recommendation Recommend(std::span<const SweepRow> rows, const RecommendOptions& options = {});

// best's images/s over row's (0 when either is missing or 0).
double Speedup(std::span<const SweepRow> rows, std::optional<size_t> best,
               std::optional<size_t> other);

// A few lines for people (printed, and the report's last section): the settings to use, with
// their images/s, shuffle quality and fraction of the ceiling, and how much faster they are
// than the defaults, the random sampler and the reference loaders.
std::string DescribeRecommendation(std::span<const SweepRow> rows, const Recommendation& r,
                                   const RecommendOptions& options = {});

// When not one h5feed run succeeded (and there was one): why, for the sweep to fail with. Says
// how many runs failed and each distinct reason with how many runs gave it, the commonest
// first. Reference loaders do not count: they measure something else.
std::optional<std::string> EveryRunFailed(std::span<const SweepRow> rows);

// Rows in report order: successful runs by images/s, fastest first, then the failed ones.
std::vector<size_t> RankRows(std::span<const SweepRow> rows);

}  // namespace h5feed::bench
