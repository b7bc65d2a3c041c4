#include "bench/ceilings.h"

#include <doctest/doctest.h>

#include "bench/zstd_rate.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "lib/loader/test_files.h"
#include "support/temp_folder.h"

namespace h5feed::bench {
namespace {

TEST_CASE("the binding ceiling is the lower of page cache x ratio and zstd x threads") {
  Ceilings c;
  c.page_cache_mb_per_s = 3000;
  c.compression_ratio = 1.5;
  c.threads = 2;
  CHECK_FALSE(c.compressed());
  CHECK(c.PixelMbPerSecond() == doctest::Approx(4500));
  CHECK(c.Binding() == "page cache");
  c.zstd_mb_per_s = 1000;
  CHECK(c.compressed());
  CHECK(c.PixelMbPerSecond() == doctest::Approx(2000));
  CHECK(c.Binding() == "zstd x 2");
  c.threads = 8;
  CHECK(c.PixelMbPerSecond() == doctest::Approx(4500));
  CHECK(c.Binding() == "page cache");
  CHECK(FractionOf(900, 4500) == doctest::Approx(0.2));
  CHECK(FractionOf(900, 0) == 0);
}

TEST_CASE("ceilings of a real file: zstd measured only for a zstd file") {
  testing::TempFolder folder;
  const ImageShape shape{16, 16, 3};
  testing::WriteH5feedFile(folder / "raw.h5", 200, shape, 10, Compression::Parse("none"));
  testing::WriteH5feedFile(folder / "zstd.h5", 200, shape, 10, Compression::Parse("zstd:3"));
  CeilingOptions options;
  options.threads = 2;
  options.rounds = 1;
  const Ceilings raw = MeasureCeilings(folder / "raw.h5", options);
  CHECK(raw.page_cache_mb_per_s > 0);
  CHECK(raw.memcpy_mb_per_s > 0);
  CHECK_FALSE(raw.compressed());
  CHECK(raw.compression_ratio == doctest::Approx(1.0));
  CHECK_FALSE(IsZstdH5feedFile(folder / "raw.h5"));

  const Ceilings zstd = MeasureCeilings(folder / "zstd.h5", options);
  CHECK(zstd.compressed());
  CHECK(zstd.threads == 2);
  // FilePixel's rows are regular: zstd compresses them.
  CHECK(zstd.compression_ratio > 1.5);
  CHECK(zstd.compression_ratio == doctest::Approx(CompressionRatio(folder / "zstd.h5")));
  CHECK(zstd.PixelMbPerSecond() <= zstd.zstd_mb_per_s * 2 + 1e-9);

  CHECK_THROWS_AS(ReadStoredZstdChunks(folder / "raw.h5", 1 << 20), Error);

  // Images at their own size: each image's own pixels, not the largest image's times N.
  testing::WriteOwnSizeFile(folder / "own.h5", 40);
  double pixels = 0;
  for (int64_t r = 0; r < 40; ++r) pixels += static_cast<double>(testing::OwnSizeShape(r).bytes());
  const index::DatasetIndex own = index::OpenDatasetIndex(folder / "own.h5", index::IndexOptions{});
  uint64_t stored_bytes = 0;
  for (const auto& chunk : own.chunks) stored_bytes += chunk.stored_bytes;
  CHECK(CompressionRatio(folder / "own.h5") ==
        doctest::Approx(pixels / static_cast<double>(stored_bytes)));
  const StoredZstdChunks stored = ReadStoredZstdChunks(folder / "zstd.h5", 1 << 20);
  CHECK(stored.frames.size() == 20);
  CHECK(stored.chunk_samples == 10);
}

}  // namespace
}  // namespace h5feed::bench
