#include "sampler/shuffle_quality.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <vector>

#include "h5feed/error.h"
#include "sampler/epoch_order.h"
#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

using Kind = SamplerOptions::Kind;

// `order` read from chunks of k rows (the dataset is as long as its largest row needs).
ShuffleQuality Measure(std::span<const int64_t> order, int64_t k, int64_t batch) {
  const int64_t rows = order.empty() ? 0 : *std::max_element(order.begin(), order.end()) + 1;
  return MeasureShuffleQuality(order, ChunkRows(std::max<int64_t>(rows, 0), k), batch);
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return rows;
}

TEST_CASE("a hand-worked order gives the expected entropy and chunks per batch") {
  // Distances 1, 2, 3, 1: p = 1/2, 1/4, 1/4, so 1.5 bits. Chunks of 4, batches of 2:
  // {0, 1} -> 1 chunk, {3, 6} -> 2, {7} -> 1: 4 / 3 per batch.
  const std::vector<int64_t> order{0, 1, 3, 6, 7};
  const ShuffleQuality q = Measure(order, 4, 2);
  CHECK(q.delta_entropy_bits == doctest::Approx(1.5));
  CHECK(q.chunks_per_batch == doctest::Approx(4.0 / 3.0));
  CHECK(q.delta_entropy_ratio > 0);
  // Direction does not matter: distances are absolute.
  const std::vector<int64_t> reversed{7, 6, 3, 1, 0};
  CHECK(Measure(reversed, 4, 2).delta_entropy_bits == doctest::Approx(1.5));
}

TEST_CASE("file order scores zero entropy and one chunk per aligned batch") {
  const std::vector<int64_t> order = Iota(4096);
  for (int64_t batch : {1, 4, 8, 16}) {
    const ShuffleQuality q = Measure(order, 16, batch);
    CHECK(q.delta_entropy_bits == 0);
    CHECK(q.delta_entropy_ratio == 0);
    CHECK(q.chunks_per_batch == 1);
  }
  CHECK(Measure(order, 16, 32).chunks_per_batch == 2);
}

TEST_CASE("a random order touches about min(batch, chunks) chunks per batch") {
  const int64_t n = 4096, k = 16, chunks = n / k;
  const std::vector<int64_t> order = Permutation(n, 77);
  for (int64_t batch : {8, 64, 256}) {
    // Expected distinct chunks among `batch` draws from `chunks` equal chunks, without
    // replacement of rows: ~ chunks * (1 - (1 - 1/chunks)^batch).
    const double expected =
        chunks * (1 - std::pow(1 - 1.0 / static_cast<double>(chunks), static_cast<double>(batch)));
    const ShuffleQuality q = Measure(order, k, batch);
    INFO("batch " << batch << " expected " << expected << " got " << q.chunks_per_batch);
    CHECK(std::abs(q.chunks_per_batch - expected) < 0.05 * expected);
    CHECK(q.chunks_per_batch <= static_cast<double>(std::min(batch, chunks)));
  }
  CHECK(Measure(order, k, 8).chunks_per_batch > 7.5);
  CHECK(Measure(order, n, 256).chunks_per_batch == 1);  // one chunk in all
}

TEST_CASE("a random order's entropy is near log2(N) and its ratio near one at any size") {
  for (int64_t n : {1000, 20000, 200000}) {
    const ShuffleQuality q = Measure(Permutation(n, 5), 64, 256);
    INFO("N=" << n << " bits " << q.delta_entropy_bits);
    CHECK(q.delta_entropy_bits > std::log2(static_cast<double>(n)) - 1.5);
    CHECK(q.delta_entropy_bits < std::log2(static_cast<double>(n)));
    CHECK(q.delta_entropy_ratio == doctest::Approx(1.0).epsilon(0.02));
  }
}

TEST_CASE("quality orders sequential below the chunk-aware samplers below random") {
  const SampleGeometry g{4096, 16};
  auto measure = [&](SamplerOptions s) {
    const std::vector<int64_t> order = EpochOrder(g, s, {}, 2024, 0);
    return Measure(order, g.max_rows(), 64);
  };
  const ShuffleQuality sequential = measure({Kind::kSequential, 8});
  const ShuffleQuality chunks1 = measure({Kind::kChunks, 1});
  const ShuffleQuality chunks4 = measure({Kind::kChunks, 4});
  const ShuffleQuality chunks32 = measure({Kind::kChunks, 32});
  const ShuffleQuality quasi4 = measure({Kind::kQuasi, 4});
  const ShuffleQuality random = measure({Kind::kRandom, 8});
  MESSAGE("bits: sequential " << sequential.delta_entropy_bits << ", chunks:1 "
                              << chunks1.delta_entropy_bits << ", chunks:4 "
                              << chunks4.delta_entropy_bits << ", chunks:32 "
                              << chunks32.delta_entropy_bits << ", quasi:4 "
                              << quasi4.delta_entropy_bits << ", random "
                              << random.delta_entropy_bits);
  CHECK(sequential.delta_entropy_bits < chunks1.delta_entropy_bits);
  CHECK(chunks1.delta_entropy_bits < chunks4.delta_entropy_bits);
  CHECK(chunks4.delta_entropy_bits < chunks32.delta_entropy_bits);
  CHECK(chunks32.delta_entropy_bits < random.delta_entropy_bits);
  CHECK(sequential.delta_entropy_bits < quasi4.delta_entropy_bits);
  CHECK(quasi4.delta_entropy_bits < random.delta_entropy_bits);
  CHECK(sequential.delta_entropy_ratio < chunks4.delta_entropy_ratio);
  CHECK(chunks4.delta_entropy_ratio < random.delta_entropy_ratio);
  // Batches of 64 from windows of 4 chunks touch at most 4 chunks (8 straddling two windows).
  CHECK(sequential.chunks_per_batch == 4);
  CHECK(chunks4.chunks_per_batch <= 8);
  CHECK(random.chunks_per_batch > 50);
}

TEST_CASE("orders too short to have distances score zero") {
  const std::vector<int64_t> empty;
  CHECK(Measure(empty, 4, 2).delta_entropy_bits == 0);
  CHECK(Measure(empty, 4, 2).chunks_per_batch == 0);
  CHECK(Measure(empty, 4, 2).delta_entropy_ratio == 1);
  const std::vector<int64_t> one{5};
  CHECK(Measure(one, 4, 2).delta_entropy_bits == 0);
  CHECK(Measure(one, 4, 2).chunks_per_batch == 1);
}

TEST_CASE("bad chunk size, batch size or rows are invalid-argument errors") {
  const std::vector<int64_t> order{0, 1, 2};
  CHECK_THROWS_AS(Measure(order, 0, 2), Error);
  CHECK_THROWS_AS(Measure(order, 4, 0), Error);
  const std::vector<int64_t> negative{0, -1, 2};
  CHECK_THROWS_WITH_AS(Measure(negative, 4, 2), doctest::Contains("row -1 at position 1"), Error);
}

}  // namespace
}  // namespace h5feed::sampler
