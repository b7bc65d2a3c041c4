// The loader's share-out of cache_bytes (loader/cache_budget.h): the working set per sampler,
// what is left to prefetch, and when Open warns.

#include "loader/cache_budget.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace h5feed::loader {
namespace {

constexpr int64_t kChunkSamples = 16;
constexpr int64_t kSampleBytes = 100;
constexpr int64_t kChunkBytes = kChunkSamples * kSampleBytes;

// 3 slots of 8 images (each step touches 8 / 16 + 1 = 1 chunk) and 2 threads: 3 chunks in
// flight, 2 pinned by the threads.
LoaderOptions Options(const char* sampler, int64_t cache_chunks) {
  LoaderOptions options;
  options.sampler = SamplerOptions::Parse(sampler);
  options.batch_size = 8;
  options.slots = 3;
  options.threads = 2;
  options.cache_bytes = cache_chunks * kChunkBytes;
  return options;
}

CacheBudget Budget(const LoaderOptions& options) {
  return MeasureCacheBudget(options, options.batch_size,
                            ChunkRows(1000 * kChunkSamples, kChunkSamples),
                            kChunkSamples * kSampleBytes);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("the working set is the sampler's window, the steps in flight and one chunk a thread") {
  CHECK(Budget(Options("sequential", 20)).working_set == 1 + 3 + 2);
  CHECK(Budget(Options("chunks:4", 20)).working_set == 4 + 3 + 2);
  CHECK(Budget(Options("quasi:6", 20)).working_set == 6 + 3 + 2);
  CHECK(Budget(Options("random", 20)).working_set == 10);  // half the cache
  LoaderOptions wide = Options("chunks:4", 20);
  wide.batch_size = 40;  // each step touches 40 / 16 + 1 = 3 chunks
  CHECK(Budget(wide).working_set == 4 + 3 * 3 + 2);
  LoaderOptions automatic = Options("chunks:4", 20);
  automatic.threads = 0;  // TBB's default: counted as one
  CHECK(Budget(automatic).working_set == 4 + 3 + 1);
}

TEST_CASE("what the working set leaves of the cache is prefetched ahead, never less than 0") {
  const CacheBudget budget = Budget(Options("chunks:4", 20));
  CHECK(budget.chunk_bytes == kChunkBytes);
  CHECK(budget.cache_chunks == 20);
  CHECK(budget.prefetch_chunks() == 20 - 9);
  CHECK(Budget(Options("chunks:4", 5)).prefetch_chunks() == 0);
  LoaderOptions partial = Options("chunks:4", 20);
  partial.cache_bytes += kChunkBytes - 1;  // a part of a chunk holds none
  CHECK(Budget(partial).cache_chunks == 20);
}

TEST_CASE("a file without chunk bytes has no budget and no warning") {
  const LoaderOptions options = Options("chunks:4", 1);
  const CacheBudget budget = MeasureCacheBudget(options, options.batch_size,
                                                ChunkRows(1000 * kChunkSamples, kChunkSamples), 0);
  CHECK(budget.cache_chunks == 0);
  CHECK(budget.working_set == 0);
  CHECK(budget.prefetch_chunks() == 0);
  CHECK_FALSE(CacheTooSmallWarning(options, budget, 100, "f.h5"));
}

TEST_CASE("chunks:W warns below its working set and the next window, quasi:W below one ahead") {
  // chunks:4: 9 in use and 4 ahead, 13; quasi:4: 9 and 1 ahead, 10. 100 chunks in the file.
  const auto warning = [](const char* sampler, int64_t cache_chunks) {
    const LoaderOptions options = Options(sampler, cache_chunks);
    return CacheTooSmallWarning(options, Budget(options), 100, "data/train.h5");
  };
  CHECK_FALSE(warning("chunks:4", 13));
  const std::optional<std::string> ahead = warning("chunks:4", 12);
  REQUIRE(ahead);
  CHECK(Contains(*ahead, "a cache of 18.8 KiB holds 12 chunks of data/train.h5"));
  CHECK(Contains(*ahead, "sampler chunks:4 keeps about 9 in use"));
  CHECK(Contains(*ahead, "needs room for 4 more"));
  CHECK(Contains(*ahead, "batches can wait at each window switch"));
  CHECK(Contains(*ahead, "cache_bytes of 20.4 KiB avoids it"));  // 13 x 1600 bytes, rounded up
  CHECK(Contains(*warning("chunks:4", 9), "window switch"));
  const std::optional<std::string> rereads = warning("chunks:4", 8);
  REQUIRE(rereads);
  CHECK(Contains(*rereads, "more than once per epoch"));
  CHECK(Contains(*rereads, "cache_bytes of 20.4 KiB avoids it"));

  CHECK_FALSE(warning("quasi:4", 10));
  REQUIRE(warning("quasi:4", 9));
  CHECK(Contains(*warning("quasi:4", 9), "needs room for 1 more"));
}

TEST_CASE("no warning when the cache holds the whole file, nor for sequential or random") {
  const LoaderOptions options = Options("chunks:4", 10);
  CHECK(CacheTooSmallWarning(options, Budget(options), 11, "f.h5"));
  CHECK_FALSE(CacheTooSmallWarning(options, Budget(options), 10, "f.h5"));
  for (const char* sampler : {"sequential", "random"}) {
    const LoaderOptions other = Options(sampler, 1);
    CHECK_FALSE(CacheTooSmallWarning(other, Budget(other), 100, "f.h5"));
  }
}

}  // namespace
}  // namespace h5feed::loader
