// The sweep's recommendation (recommendation.h).

#include "recommendation.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/sampler_options.h"
#include "number_text.h"

namespace h5feed::bench {
namespace {

bool IsH5feedRun(const SweepRow& row) {
  return row.kind != "reference" && row.succeeded() && row.images_per_s > 0;
}

// A row's sampler is SamplerOptions::ToString's.
bool IsRandomSampler(const SweepRow& row) {
  return row.sampler == SamplerOptions{SamplerOptions::Kind::kRandom}.ToString();
}

double Quality(const SweepRow& row) {
  return Measured(row.shuffle_quality) ? row.shuffle_quality : 0;
}

// Random enough to recommend: the shuffle-quality bar, and batches that mix the classes.
bool Qualifies(const SweepRow& row, const RecommendOptions& options) {
  return Quality(row) >= options.min_shuffle_quality && !row.few_classes;
}

// When no run qualifies: runs that mix the classes first, then the most random.
bool MoreRandom(const SweepRow& a, const SweepRow& b) {
  if (a.few_classes != b.few_classes) return !a.few_classes;
  return Quality(a) > Quality(b);
}

// The same file variant (and so the same file size).
bool SameFile(const SweepRow& a, const SweepRow& b) {
  return a.chunk_samples == b.chunk_samples && a.compression == b.compression &&
         a.encoding == b.encoding && a.chunk_bytes == b.chunk_bytes;
}

// The --chunk-bytes value of `bytes`: "4M", "640K", else the bytes.
std::string ChunkBytesFlag(int64_t bytes) {
  if (bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes % (int64_t{1} << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

// "1.8x faster than" / "0.9x (slower than)": a ratio with the word it needs.
std::string Compared(double speedup) {
  return Fixed("%.2fx", speedup) + (speedup >= 1 ? " the speed of" : " (slower than)");
}

}  // namespace

Recommendation Recommend(std::span<const SweepRow> rows, const RecommendOptions& options) {
  Recommendation r;
  std::optional<size_t> fastest;
  for (size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& row = rows[i];
    if (row.kind == "reference") {
      if (row.succeeded() &&
          (!r.best_reference || row.images_per_s > rows[*r.best_reference].images_per_s)) {
        r.best_reference = i;
      }
      continue;
    }
    if (row.is_default && row.succeeded()) r.defaults = i;
    if (!IsH5feedRun(row)) continue;
    if (IsRandomSampler(row) &&
        (!r.fastest_random || row.images_per_s > rows[*r.fastest_random].images_per_s)) {
      r.fastest_random = i;
    }
    if (Qualifies(row, options) && (!fastest || row.images_per_s > rows[*fastest].images_per_s)) {
      fastest = i;
    }
  }
  if (fastest) {
    r.quality_met = true;
    const double floor = rows[*fastest].images_per_s * (1 - options.tie_share);
    r.best = fastest;
    for (size_t i = 0; i < rows.size(); ++i) {
      const SweepRow& row = rows[i];
      if (!IsH5feedRun(row) || !Qualifies(row, options) || row.images_per_s < floor) {
        continue;
      }
      const SweepRow& best = rows[*r.best];
      if (Quality(row) > Quality(best) ||
          (Quality(row) == Quality(best) && row.cache_mb < best.cache_mb)) {
        r.best = i;
      }
    }
  } else {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (IsH5feedRun(rows[i]) && (!r.best || MoreRandom(rows[i], rows[*r.best]))) {
        r.best = i;
      }
    }
  }
  if (r.best && rows[*r.best].fits_page_cache == "no") {
    // The fastest run within page_cache_share on a file that fits, by the same bar.
    const SweepRow& best = rows[*r.best];
    std::optional<size_t> fitting;
    for (size_t i = 0; i < rows.size(); ++i) {
      const SweepRow& row = rows[i];
      if (!IsH5feedRun(row) || row.fits_page_cache != "yes") continue;
      if (r.quality_met ? !Qualifies(row, options) : row.few_classes != best.few_classes) continue;
      if (row.images_per_s < best.images_per_s * (1 - options.page_cache_share)) continue;
      if (!fitting || row.images_per_s > rows[*fitting].images_per_s) fitting = i;
    }
    if (fitting) {
      r.beyond_page_cache = r.best;
      r.best = fitting;
    }
  }
  if (r.best) {
    const SweepRow& best = rows[*r.best];
    for (size_t i = 0; i < rows.size(); ++i) {
      const SweepRow& row = rows[i];
      if (IsH5feedRun(row) && IsRandomSampler(row) && SameFile(row, best) &&
          row.cache_mb == best.cache_mb) {
        r.random = i;
      }
    }
  }
  return r;
}

double Speedup(std::span<const SweepRow> rows, std::optional<size_t> best,
               std::optional<size_t> other) {
  if (!best || !other || rows[*other].images_per_s <= 0) return 0;
  return rows[*best].images_per_s / rows[*other].images_per_s;
}

std::optional<std::string> EveryRunFailed(std::span<const SweepRow> rows) {
  std::vector<std::pair<std::string, int>> reasons;  // in the order first seen
  int runs = 0;
  for (const SweepRow& row : rows) {
    if (row.kind == "reference") continue;
    if (row.succeeded()) return std::nullopt;
    ++runs;
    const std::string reason = row.error.empty() ? "no reason given" : row.error;
    auto seen = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& entry) { return entry.first == reason; });
    if (seen == reasons.end()) {
      reasons.emplace_back(reason, 1);
    } else {
      ++seen->second;
    }
  }
  if (runs == 0) return std::nullopt;
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text =
      runs == 1 ? "the one run failed" : "all " + std::to_string(runs) + " runs failed";
  for (size_t i = 0; i < reasons.size(); ++i) {
    text += (i == 0 ? ": " : "; ");
    if (reasons.size() > 1 || runs > 1) {
      text += std::to_string(reasons[i].second) + (reasons[i].second == 1 ? " run: " : " runs: ");
    }
    text += reasons[i].first;
  }
  return text;
}

std::string DescribeRecommendation(std::span<const SweepRow> rows, const Recommendation& r,
                                   const RecommendOptions& options) {
  if (!r.best) return "No run succeeded, so there is nothing to recommend: see the errors above.\n";
  const SweepRow& best = rows[*r.best];
  const std::string converting =
      best.chunk_bytes > 0
          ? "--encoding " + best.encoding + " --chunk-bytes " + ChunkBytesFlag(best.chunk_bytes)
          : "--chunk " + std::to_string(best.chunk_samples);
  std::string text = "Recommended: " + converting + " --compression " + best.compression +
                     " when converting, and cache " + std::to_string(best.cache_mb) +
                     " MiB with the " + best.sampler +
                     " sampler when reading: " + Fixed("%.0f images/s", best.images_per_s);
  if (Measured(best.shuffle_quality)) {
    text += Fixed(", shuffle quality %.2f", best.shuffle_quality);
    if (Measured(best.random_shuffle_quality)) {
      text += Fixed(" (random: %.2f)", best.random_shuffle_quality);
    }
  }
  if (Measured(best.fraction_of_ceiling)) {
    text += Fixed(", %.2f of the machine's ceiling", best.fraction_of_ceiling) + " (" +
            best.ceiling + ")";
  }
  // A cold run (--cold) read from the disk: its ceiling is the disk's rate for its file, which
  // the page cache's above does not say.
  if (Measured(best.fraction_of_disk)) {
    text += Fixed(", %.2f of the disk's rate for its file", best.fraction_of_disk) +
            Fixed(" (%.0f MB/s, read cold)", best.disk_mb_per_s);
  }
  if (Measured(best.file_mib)) {
    text += Fixed("; its file is %.1f MiB", best.file_mib);
    if (Measured(r.input_file_mib) && r.input_file_mib > 0) {
      text += Fixed(" (%.2fx", best.file_mib / r.input_file_mib) +
              Fixed(" the input's %.1f MiB)", r.input_file_mib);
    }
    if (best.fits_page_cache == "yes") text += " and fits the page cache";
    if (best.fits_page_cache == "no") text += " and does not fit the page cache";
  }
  text += ".\n";
  if (r.beyond_page_cache) {
    const SweepRow& faster = rows[*r.beyond_page_cache];
    text += "  Preferred to the faster " + faster.Settings() +
            Fixed(" (%.0f images/s", faster.images_per_s) +
            Fixed(", within %.0f%%)", options.page_cache_share * 100) +
            Fixed(
                ", whose file of %.1f MiB does not fit the page cache: once the cache drops "
                "it, every epoch reads it from disk.\n",
                faster.file_mib);
  }
  if (!r.quality_met) {
    text += "No run reached the shuffle-quality bar of " +
            Fixed("%.2f", options.min_shuffle_quality) +
            " with batches that mix the classes; this is the most random one. Try a larger "
            "window (chunks:W, quasi:W) or smaller chunks";
    text += best.few_classes ? "; the file stores its rows sorted by label: 'h5feed rechunk "
                               "FILE OUT --seed 0' writes a shuffled copy to sweep instead.\n"
                             : ".\n";
  }
  if (r.defaults && *r.defaults != *r.best) {
    text += "  " + Compared(Speedup(rows, r.best, r.defaults)) + " the defaults (" +
            rows[*r.defaults].Settings() +
            Fixed(": %.0f images/s).\n", rows[*r.defaults].images_per_s);
  } else if (r.defaults) {
    text += "  These are h5feed's defaults.\n";
  }
  if (r.random && *r.random != *r.best) {
    text += "  " + Compared(Speedup(rows, r.best, r.random)) +
            " the random sampler with the same file and cache" +
            Fixed(" (%.0f images/s).\n", rows[*r.random].images_per_s);
  }
  if (r.fastest_random && r.fastest_random != r.random && *r.fastest_random != *r.best) {
    text += "  " + Compared(Speedup(rows, r.best, r.fastest_random)) +
            " the fastest random-sampler run (" + rows[*r.fastest_random].Settings() +
            Fixed(": %.0f images/s).\n", rows[*r.fastest_random].images_per_s);
  }
  if (r.best_reference) {
    text += "  " + Compared(Speedup(rows, r.best, r.best_reference)) +
            " the fastest PyTorch DataLoader + h5py loader (" + rows[*r.best_reference].sampler +
            Fixed(": %.0f images/s).\n", rows[*r.best_reference].images_per_s);
  }
  return text;
}

std::vector<size_t> RankRows(std::span<const SweepRow> rows) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (rows[a].succeeded() != rows[b].succeeded()) return rows[a].succeeded();
    return rows[a].images_per_s > rows[b].images_per_s;
  });
  return order;
}

}  // namespace h5feed::bench
