#include "sampler/epoch_order.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "open_chunks.h"
#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

using transform::RandomStream;

using Kind = SamplerOptions::Kind;

std::vector<SamplerOptions> AllSamplers() {
  return {{Kind::kSequential, 8}, {Kind::kRandom, 8}, {Kind::kChunks, 1},
          {Kind::kChunks, 4},     {Kind::kQuasi, 1},  {Kind::kQuasi, 3}};
}

// (samples, chunk_samples): chunk-aligned and not, one chunk, one-sample chunks, fewer
// samples than ranks.
std::vector<SampleGeometry> AllGeometries() {
  return {{1, 1},  {1, 5},   {3, 8},    {5, 2},   {10, 3},  {17, 4},
          {64, 8}, {100, 7}, {101, 10}, {37, 37}, {200, 1}, {1000, 16}};
}

bool ChunkAware(const SamplerOptions& sampler) { return sampler.kind != Kind::kRandom; }

std::string Describe(const SampleGeometry& g, const SamplerOptions& s, const ShardOptions& shard,
                     int64_t epoch) {
  return "N=" + std::to_string(g.samples()) + " K=" + std::to_string(g.max_rows()) + " " +
         s.ToString() + " rank " + std::to_string(shard.rank) + "/" +
         std::to_string(shard.world_size) + (shard.drop_last ? " drop_last" : "") + " epoch " +
         std::to_string(epoch);
}

// DistributedSampler.__iter__ and __len__ (torch/utils/data/distributed.py), transcribed, over
// the permutation the random sampler is documented to use.
std::vector<int64_t> DistributedSamplerReference(int64_t n, int world, int rank, bool drop_last,
                                                 uint64_t seed, int64_t epoch) {
  std::vector<int64_t> indices =
      Permutation(n, StreamSeed(seed, epoch, RandomStream::kGlobalPermutation, 0));
  int64_t num_samples = 0;
  if (drop_last && n % world != 0) {
    // math.ceil((len(dataset) - num_replicas) / num_replicas), with Python's float division.
    num_samples = static_cast<int64_t>(
        std::ceil(static_cast<double>(n - world) / static_cast<double>(world)));
  } else {
    num_samples = static_cast<int64_t>(std::ceil(static_cast<double>(n) / world));
  }
  const int64_t total_size = num_samples * world;
  if (!drop_last) {
    const int64_t padding_size = total_size - n;
    if (padding_size <= n) {
      indices.insert(indices.end(), indices.begin(), indices.begin() + padding_size);
    } else {
      std::vector<int64_t> repeated;
      const int64_t copies = (padding_size + n - 1) / n;
      for (int64_t c = 0; c < copies; ++c) {
        repeated.insert(repeated.end(), indices.begin(), indices.end());
      }
      indices.insert(indices.end(), repeated.begin(), repeated.begin() + padding_size);
    }
  } else {
    indices.resize(static_cast<size_t>(total_size));
  }
  std::vector<int64_t> mine;
  for (int64_t i = rank; i < total_size; i += world) {
    mine.push_back(indices[static_cast<size_t>(i)]);
  }
  return mine;
}

TEST_CASE("every rank yields its share and the ranks together cover the rows as promised") {
  for (const SampleGeometry& g : AllGeometries()) {
    for (const SamplerOptions& s : AllSamplers()) {
      for (int world = 1; world <= 4; ++world) {
        for (bool drop_last : {false, true}) {
          if (drop_last && g.samples() < world) continue;  // an error, tested below
          for (int64_t epoch : {0, 1, 7}) {
            ShardOptions shard{0, world, drop_last};
            const int64_t per_rank = SamplesPerRank(g, shard);
            CHECK(per_rank ==
                  (drop_last ? g.samples() / world : (g.samples() + world - 1) / world));
            std::vector<int64_t> count(static_cast<size_t>(g.samples()), 0);
            for (int rank = 0; rank < world; ++rank) {
              shard.rank = rank;
              INFO(Describe(g, s, shard, epoch));
              std::vector<int64_t> order = EpochOrder(g, s, shard, 42, epoch);
              REQUIRE(static_cast<int64_t>(order.size()) == per_rank);
              std::set<int64_t> distinct_rows(order.begin(), order.end());
              CHECK(distinct_rows.size() == order.size());  // a rank never repeats a row
              for (int64_t row : order) {
                REQUIRE(row >= 0);
                REQUIRE(row < g.samples());
                ++count[static_cast<size_t>(row)];
              }
            }
            INFO(Describe(g, s, shard, epoch));
            const int64_t handed_out = world * per_rank;
            if (!drop_last) {
              int64_t repeats = 0;
              for (int64_t c : count) {
                CHECK(c >= 1);
                repeats += c - 1;
              }
              CHECK(repeats == handed_out - g.samples());
            } else {
              int64_t missing = 0;
              for (int64_t c : count) {
                CHECK(c <= 1);
                missing += c == 0;
              }
              CHECK(missing == g.samples() - handed_out);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the same seed and epoch give the same order and other epochs or seeds other orders") {
  const SampleGeometry g{1000, 16};
  for (const SamplerOptions& s : AllSamplers()) {
    for (int world : {1, 3}) {
      for (int rank = 0; rank < world; ++rank) {
        const ShardOptions shard{rank, world, false};
        INFO(Describe(g, s, shard, 0));
        const std::vector<int64_t> order = EpochOrder(g, s, shard, 42, 0);
        CHECK(EpochOrder(g, s, shard, 42, 0) == order);
        if (s.kind == Kind::kSequential && world == 1) {
          // File order every epoch, whatever the seed.
          CHECK(EpochOrder(g, s, shard, 42, 1) == order);
          CHECK(EpochOrder(g, s, shard, 43, 0) == order);
          continue;
        }
        CHECK(EpochOrder(g, s, shard, 42, 1) != order);
        CHECK(EpochOrder(g, s, shard, 42, 2) != EpochOrder(g, s, shard, 42, 1));
        if (s.kind != Kind::kSequential) CHECK(EpochOrder(g, s, shard, 43, 0) != order);
      }
    }
  }
}

TEST_CASE("random follows DistributedSampler's padding and striding exactly") {
  for (const SampleGeometry& g : AllGeometries()) {
    for (int world = 1; world <= 4; ++world) {
      for (bool drop_last : {false, true}) {
        if (drop_last && g.samples() < world) continue;
        for (int rank = 0; rank < world; ++rank) {
          for (int64_t epoch : {0, 3}) {
            const ShardOptions shard{rank, world, drop_last};
            INFO(Describe(g, {Kind::kRandom, 8}, shard, epoch));
            CHECK(EpochOrder(g, {Kind::kRandom, 8}, shard, 9, epoch) ==
                  DistributedSamplerReference(g.samples(), world, rank, drop_last, 9, epoch));
          }
        }
      }
    }
  }
}

TEST_CASE("orders match the documented algorithm's reference values") {
  // Computed by an independent Python transcription of epoch_order.h's definitions; a change
  // here changes every stored order and the Python binding's, so it must be deliberate.
  CHECK(StreamSeed(0, 0, RandomStream::kGlobalPermutation, 0) == 15703761562794949698ULL);
  CHECK(StreamSeed(42, 3, RandomStream::kLocalShuffle, 2) == 3792402931384695111ULL);
  using V = std::vector<int64_t>;
  CHECK(EpochOrder({10, 3}, {Kind::kRandom, 8}, {0, 1, false}, 42, 0) ==
        V{9, 1, 3, 0, 5, 8, 2, 4, 7, 6});
  CHECK(EpochOrder({10, 3}, {Kind::kRandom, 8}, {1, 3, false}, 42, 1) == V{9, 2, 1, 4});
  CHECK(EpochOrder({23, 4}, {Kind::kChunks, 2}, {0, 1, false}, 42, 0) ==
        V{22, 21, 13, 14, 20, 12, 15, 9, 16, 19, 11, 17, 10, 8, 18, 7, 0, 1, 2, 3, 4, 6, 5});
  CHECK(EpochOrder({23, 4}, {Kind::kChunks, 2}, {1, 2, true}, 7, 5) ==
        V{18, 9, 17, 19, 11, 16, 8, 10, 5, 4, 6});
  CHECK(EpochOrder({23, 4}, {Kind::kQuasi, 2}, {0, 1, false}, 42, 0) ==
        V{13, 15, 20, 14, 21, 12, 22, 19, 8, 17, 16, 11, 9, 10, 18, 0, 2, 4, 1, 3, 5, 6, 7});
  CHECK(EpochOrder({23, 4}, {Kind::kQuasi, 3}, {2, 3, false}, 7, 1) ==
        V{19, 13, 0, 15, 14, 16, 18, 17});
  CHECK(EpochOrder({10, 3}, {Kind::kSequential, 8}, {0, 3, false}, 1, 1) == V{4, 5, 6, 7});
}

TEST_CASE("stream seeds differ across epochs, streams and lanes") {
  std::set<uint64_t> seen;
  for (int64_t epoch = -2; epoch < 50; ++epoch) {
    for (auto stream : {RandomStream::kGlobalPermutation, RandomStream::kChunkOrder,
                        RandomStream::kLocalShuffle}) {
      for (int64_t lane = 0; lane < 8; ++lane) seen.insert(StreamSeed(5, epoch, stream, lane));
    }
  }
  CHECK(seen.size() == 52 * 3 * 8);
  CHECK(StreamSeed(5, 0, RandomStream::kChunkOrder, 0) !=
        StreamSeed(6, 0, RandomStream::kChunkOrder, 0));
}

TEST_CASE("sequential gives one rank the file in order and rotates blocks between epochs") {
  const SampleGeometry g{103, 10};
  std::vector<int64_t> all(103);
  std::iota(all.begin(), all.end(), int64_t{0});
  CHECK(EpochOrder(g, {Kind::kSequential, 8}, {0, 1, false}, 1, 0) == all);
  CHECK(EpochOrder(g, {Kind::kSequential, 8}, {0, 1, true}, 1, 5) == all);
  for (int world = 2; world <= 4; ++world) {
    for (int64_t epoch = 0; epoch < 5; ++epoch) {
      for (int rank = 0; rank < world; ++rank) {
        // Rank r in epoch e + 1 reads what rank r + 1 read in epoch e.
        CHECK(EpochOrder(g, {Kind::kSequential, 8}, {rank, world, false}, 1, epoch + 1) ==
              EpochOrder(g, {Kind::kSequential, 8}, {(rank + 1) % world, world, false}, 1, epoch));
      }
    }
  }
  // Rank 0 of 4 in epoch 0 reads the first ceil(103 / 4) = 26 rows in order.
  std::vector<int64_t> first(all.begin(), all.begin() + 26);
  CHECK(EpochOrder(g, {Kind::kSequential, 8}, {0, 4, false}, 1, 0) == first);
}

TEST_CASE("a chunk-aware rank reads only about its share of the chunks") {
  for (const SampleGeometry& g : AllGeometries()) {
    for (const SamplerOptions& s : AllSamplers()) {
      if (!ChunkAware(s)) continue;
      for (int world = 1; world <= 4; ++world) {
        for (bool drop_last : {false, true}) {
          if (drop_last && g.samples() < world) continue;
          for (int rank = 0; rank < world; ++rank) {
            for (int64_t epoch : {0, 1, 2}) {
              const ShardOptions shard{rank, world, drop_last};
              INFO(Describe(g, s, shard, epoch));
              const int64_t per_rank = SamplesPerRank(g, shard);
              std::set<int64_t> chunks;
              for (int64_t row : EpochOrder(g, s, shard, 3, epoch)) {
                chunks.insert(row / g.max_rows());
              }
              const int64_t share = (per_rank + g.max_rows() - 1) / g.max_rows();
              CHECK(static_cast<int64_t>(chunks.size()) <= share + 2);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a random rank reads most chunks, which is what the chunk-aware samplers avoid") {
  // The contrast behind giving ranks whole chunks: 1000 rows in 16-row chunks, 4 ranks.
  const SampleGeometry g{1000, 16};
  std::set<int64_t> chunks;
  for (int64_t row : EpochOrder(g, {Kind::kRandom, 8}, {1, 4, false}, 3, 0)) {
    chunks.insert(row / 16);
  }
  CHECK(chunks.size() > 50);  // of 63; a chunk-aware rank reads at most 18
}

TEST_CASE("chunks:W visits all rows of a chunk within a span of W chunks") {
  for (const SampleGeometry& g : AllGeometries()) {
    for (int64_t window : {1, 2, 4}) {
      const SamplerOptions s{Kind::kChunks, window};
      for (int world = 1; world <= 4; ++world) {
        for (bool drop_last : {false, true}) {
          if (drop_last && g.samples() < world) continue;
          for (int rank = 0; rank < world; ++rank) {
            const ShardOptions shard{rank, world, drop_last};
            INFO(Describe(g, s, shard, 4));
            const std::vector<int64_t> order = EpochOrder(g, s, shard, 11, 4);
            std::map<int64_t, std::pair<size_t, size_t>> span;
            for (size_t i = 0; i < order.size(); ++i) {
              auto [it, inserted] = span.try_emplace(order[i] / g.max_rows(), i, i);
              it->second.second = i;
            }
            for (auto& [chunk, range] : span) {
              CHECK(static_cast<int64_t>(range.second - range.first + 1) <= window * g.max_rows());
            }
            // So a cache of W chunks never drops a chunk that is needed again.
            CHECK(MaxOpenChunks(order, g.max_rows()) <= window);
          }
        }
      }
    }
  }
}

TEST_CASE("chunks:W mixes the rows of W chunks rather than keeping each chunk together") {
  const SampleGeometry g{4096, 16};
  const std::vector<int64_t> order = EpochOrder(g, {Kind::kChunks, 4}, {}, 1, 0);
  int64_t same_chunk_neighbours = 0;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    same_chunk_neighbours += order[i] / 16 == order[i + 1] / 16;
  }
  // Two rows drawn from a window of 64 share a chunk with probability 15/63 ~ 0.24.
  CHECK(same_chunk_neighbours > 4095 * 0.18);
  CHECK(same_chunk_neighbours < 4095 * 0.30);
}

TEST_CASE("quasi keeps at most W chunks open at any time") {
  for (const SampleGeometry& g : AllGeometries()) {
    for (int64_t window : {1, 2, 3, 8}) {
      const SamplerOptions s{Kind::kQuasi, window};
      for (int world = 1; world <= 4; ++world) {
        for (bool drop_last : {false, true}) {
          if (drop_last && g.samples() < world) continue;
          for (int rank = 0; rank < world; ++rank) {
            const ShardOptions shard{rank, world, drop_last};
            INFO(Describe(g, s, shard, 2));
            CHECK(MaxOpenChunks(EpochOrder(g, s, shard, 5, 2), g.max_rows()) <= window);
          }
        }
      }
    }
  }
}

TEST_CASE("quasi:1 reads the chunks one after another and quasi:W interleaves them") {
  const SampleGeometry g{1000, 16};
  const std::vector<int64_t> one = EpochOrder(g, {Kind::kQuasi, 1}, {}, 8, 0);
  CHECK(MaxOpenChunks(one, 16) == 1);
  const std::vector<int64_t> eight = EpochOrder(g, {Kind::kQuasi, 8}, {}, 8, 0);
  CHECK(MaxOpenChunks(eight, 16) == 8);
}

TEST_CASE("invalid geometry, shard or window is an invalid-argument error") {
  const SamplerOptions chunks{Kind::kChunks, 8};
  auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  CHECK(code_of([&] { EpochOrder({0, 4}, chunks, {}, 1, 0); }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { EpochOrder({-5, 4}, chunks, {}, 1, 0); }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { EpochOrder({10, 0}, chunks, {}, 1, 0); }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] {
          EpochOrder({10, 4}, {Kind::kChunks, 0}, {}, 1, 0);
        }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] {
          EpochOrder({10, 4}, {Kind::kQuasi, -1}, {}, 1, 0);
        }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] {
          EpochOrder({10, 4}, chunks, {-1, 2, false}, 1, 0);
        }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] {
          EpochOrder({10, 4}, chunks, {2, 2, false}, 1, 0);
        }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] {
          EpochOrder({10, 4}, chunks, {0, 0, false}, 1, 0);
        }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { SamplesPerRank({10, 4}, {0, -3, false}); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("more ranks than samples with drop_last is an error that says why") {
  CHECK_THROWS_WITH_AS(SamplesPerRank({3, 2}, {0, 4, true}),
                       doctest::Contains("would get 0 of the 3 samples with drop_last"), Error);
  CHECK_THROWS_AS(EpochOrder({3, 2}, {}, {3, 4, true}, 1, 0), Error);
  // Without drop_last the same job pads: each rank reads one row.
  CHECK(SamplesPerRank({3, 2}, {0, 4, false}) == 1);
}

TEST_CASE("chunks:W and quasi:W keep a window open, sequential and random none") {
  CHECK(UsesWindow(SamplerOptions::Parse("chunks:4")));
  CHECK(UsesWindow(SamplerOptions::Parse("quasi:1")));
  CHECK_FALSE(UsesWindow(SamplerOptions::Parse("sequential")));
  CHECK_FALSE(UsesWindow(SamplerOptions::Parse("random")));
}

}  // namespace
}  // namespace h5feed::sampler
