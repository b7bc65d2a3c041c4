#pragma once
// Sweep rows with fixed figures, for the tests of what the sweep computes from its rows (the
// recommendation, the CSV, the report, the plot): every figure is chosen here, so each test
// knows the right answer without running anything.

#include <string>
#include <vector>

#include "bench/sweep_row.h"

namespace h5feed::testing {

inline bench::SweepRow Row(int64_t chunk, std::string compression, int64_t cache_mb,
                           std::string sampler, double images_per_s, double quality) {
  bench::SweepRow row;
  row.chunk_samples = chunk;
  row.compression = std::move(compression);
  row.cache_mb = cache_mb;
  row.sampler = std::move(sampler);
  row.images_per_s = images_per_s;
  row.mb_per_s = images_per_s * 0.1;
  row.shuffle_quality = quality;
  row.random_shuffle_quality = 1.0;
  row.chunks_per_batch = 4;
  row.random_chunks_per_batch = 30;
  row.classes_per_batch = 9.5;  // batches that mix the classes
  row.random_classes_per_batch = 10;
  row.label_entropy_bits = 3.2;
  row.random_label_entropy_bits = 3.3;
  row.batch = 256;
  row.threads = 2;
  row.images = 1000;
  row.seconds = 1000 / images_per_s;
  row.page_cache_mb_per_s = 4000;
  row.compression_ratio = 1;
  row.memcpy_mb_per_s = 8000;
  row.ceiling_mb_per_s = 4000;
  row.ceiling = "page cache";
  row.fraction_of_ceiling = row.mb_per_s / 4000;
  return row;
}

// A small sweep: two chunk sizes, random against chunks:4, the defaults run, a failed run and
// one reference loader.
inline std::vector<bench::SweepRow> SmallSweep() {
  std::vector<bench::SweepRow> rows = {
      Row(16, "none", 256, "random", 1000, 1.00),      // 0
      Row(16, "none", 256, "chunks:4", 3000, 0.93),    // 1
      Row(64, "none", 256, "random", 800, 1.00),       // 2
      Row(64, "none", 256, "chunks:4", 5000, 0.85),    // 3: fastest, but below the 0.9 bar
      Row(64, "zstd:3", 512, "chunks:8", 2000, 0.97),  // 4: the defaults
  };
  rows[4].kind = "defaults";
  rows[4].is_default = true;
  bench::SweepRow failed = Row(256, "none", 64, "chunks:4", 0, 0);
  failed.status = "failed";
  failed.error = "cannot open x.h5: No such file";
  rows.push_back(failed);  // 5
  bench::SweepRow reference = Row(16, "none", 0, "h5py random", 500, bench::kNotMeasured);
  reference.kind = "reference";
  reference.classes_per_batch = reference.random_classes_per_batch = bench::kNotMeasured;
  reference.label_entropy_bits = reference.random_label_entropy_bits = bench::kNotMeasured;
  rows.push_back(reference);  // 6
  return rows;
}

}  // namespace h5feed::testing
