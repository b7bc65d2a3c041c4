// The Loader's public contract: which rows come, in which order. Every sample once per epoch
// for every sampler, 1-4 ranks, both drop_last options; the same (seed, epoch) gives the same
// batches; State/Restore resumes exactly; a state from other options is refused.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::TempFolder;
using Batches = std::vector<std::vector<int64_t>>;

constexpr int64_t kSamples = 203;  // divisible by none of 2, 3, 4
constexpr int64_t kChunk = 16;

// One small file for the whole test program (writing it is the slow part).
const std::string& TestFile() {
  static TempFolder folder;
  static const std::string path = [] {
    std::string p = folder / "order.h5";
    testing::WriteH5feedFile(p, kSamples, {4, 4, 3}, kChunk, Compression::Parse("zstd"));
    return p;
  }();
  return path;
}

LoaderOptions Options(const std::string& sampler, int64_t batch = 10) {
  LoaderOptions options;
  options.batch_size = batch;
  options.sampler = SamplerOptions::Parse(sampler);
  options.seed = 1234;
  options.threads = 2;
  options.slots = 3;
  options.cache_bytes = 4 << 10;  // a few chunks of 768 bytes: eviction really happens
  options.open_probe = false;  // a process per Open, for 160 opens of one good file (its own test:
                               // loader_open_probe_test)
  return options;
}

// The rest of the current epoch, batch by batch.
Batches ReadRest(Loader& loader) {
  Batches batches;
  while (auto batch = loader.Next()) {
    batches.emplace_back(batch->indices().begin(), batch->indices().end());
  }
  return batches;
}

Batches ReadEpoch(Loader& loader, int64_t epoch) {
  loader.SetEpoch(epoch);
  return ReadRest(loader);
}

const char* const kSamplers[] = {"sequential", "random", "chunks:3", "quasi:2"};

TEST_CASE("every sample comes once per epoch for every sampler, 1-4 ranks, both drop_lasts") {
  for (std::string sampler : kSamplers) {
    for (int world = 1; world <= 4; ++world) {
      for (bool shard_drop : {false, true}) {
        for (bool batch_drop : {false, true}) {
          CAPTURE(sampler);
          CAPTURE(world);
          CAPTURE(shard_drop);
          CAPTURE(batch_drop);
          const int64_t per_rank = shard_drop ? kSamples / world : (kSamples + world - 1) / world;
          const int64_t delivered = batch_drop ? per_rank - per_rank % 10 : per_rank;
          std::map<int64_t, int> seen;
          for (int rank = 0; rank < world; ++rank) {
            LoaderOptions options = Options(sampler);
            options.shard = {rank, world, shard_drop};
            options.drop_last_batch = batch_drop;
            Loader loader = Loader::Open(TestFile(), options);
            CHECK(loader.samples_per_epoch() == per_rank);
            CHECK(loader.batches_per_epoch() == (delivered + 9) / 10);
            Batches batches = ReadEpoch(loader, 5);
            REQUIRE(static_cast<int64_t>(batches.size()) == loader.batches_per_epoch());
            int64_t count = 0;
            std::set<int64_t> mine;
            for (size_t s = 0; s < batches.size(); ++s) {
              if (s + 1 < batches.size()) CHECK(batches[s].size() == 10);
              for (int64_t row : batches[s]) {
                CHECK(row >= 0);
                CHECK(row < kSamples);
                ++seen[row];
                mine.insert(row);
                ++count;
              }
            }
            CHECK(count == delivered);
            CHECK(static_cast<int64_t>(mine.size()) == count);  // no row twice within a rank
          }
          int64_t total = 0;
          for (const auto& [row, times] : seen) total += times;
          CHECK(total == delivered * world);
          const auto distinct = static_cast<int64_t>(seen.size());
          if (!shard_drop) {
            // The padding repeats at most world - 1 rows, once each.
            CHECK(total - distinct <= world - 1);
            if (!batch_drop) CHECK(distinct == kSamples);  // every row at least once
          } else {
            CHECK(distinct == total);  // nothing twice across ranks
            if (!batch_drop) CHECK(total == kSamples / world * world);
          }
        }
      }
    }
  }
}

TEST_CASE("the same seed and epoch give the same batches; another epoch or seed others") {
  for (std::string sampler : kSamplers) {
    CAPTURE(sampler);
    Loader a = Loader::Open(TestFile(), Options(sampler));
    Loader b = Loader::Open(TestFile(), Options(sampler));
    const Batches first = ReadEpoch(a, 3);
    CHECK(ReadEpoch(b, 3) == first);
    CHECK(ReadEpoch(a, 3) == first);  // and again on the same loader
    if (sampler != "sequential") {
      CHECK(ReadEpoch(a, 4) != first);
      LoaderOptions other = Options(sampler);
      other.seed = 99;
      Loader c = Loader::Open(TestFile(), other);
      CHECK(ReadEpoch(c, 3) != first);
    }
  }
}

TEST_CASE("the first Next without SetEpoch reads epoch 0, and the end repeats until SetEpoch") {
  Loader loader = Loader::Open(TestFile(), Options("random"));
  Batches implicit = ReadRest(loader);
  CHECK_FALSE(loader.Next());
  CHECK(loader.State().epoch == 0);
  CHECK(loader.State().step == loader.batches_per_epoch());
  Loader other = Loader::Open(TestFile(), Options("random"));
  CHECK(ReadEpoch(other, 0) == implicit);
}

TEST_CASE("a negative epoch is refused, and the loader then reads as if it was never asked") {
  // Epoch -1 was once read as an epoch like any other (and before that, read nothing on a
  // loader that had no order computed ahead): an order no epoch of a training run has.
  for (const char* sampler : {"random", "sequential", "chunks:3"}) {
    CAPTURE(sampler);
    Loader loader = Loader::Open(TestFile(), Options(sampler));
    CHECK_THROWS_AS(loader.SetEpoch(-1), Error);
    const Batches first = ReadRest(loader);  // epoch 0, as without the refused call
    CHECK(static_cast<int64_t>(first.size()) == loader.batches_per_epoch());
    Loader other = Loader::Open(TestFile(), Options(sampler));
    CHECK(ReadEpoch(other, 0) == first);
    ReadEpoch(other, 2);
    CHECK_THROWS_AS(other.SetEpoch(-1), Error);
    CHECK(ReadEpoch(other, 0) == first);
  }
}

TEST_CASE("Restore mid-epoch delivers exactly the batches of the uninterrupted run") {
  for (std::string sampler : kSamplers) {
    for (int echo : {1, 2}) {
      CAPTURE(sampler);
      CAPTURE(echo);
      LoaderOptions options = Options(sampler);
      options.echo = echo;
      Loader reference = Loader::Open(TestFile(), options);
      const Batches full = ReadEpoch(reference, 7);
      const auto steps = static_cast<int64_t>(full.size());
      for (int64_t stop : {int64_t{0}, int64_t{1}, steps / 2 + 1, steps - 1, steps}) {
        CAPTURE(stop);
        LoaderState state;
        {
          Loader first = Loader::Open(TestFile(), options);
          first.SetEpoch(7);
          for (int64_t s = 0; s < stop; ++s) REQUIRE(first.Next());
          state = first.State();
          CHECK(state.epoch == 7);
          CHECK(state.step == stop);
          CHECK(state.seed == 1234);
        }  // destroyed mid-epoch with batches in flight
        Loader resumed = Loader::Open(TestFile(), options);
        resumed.Restore(state);
        CHECK(ReadRest(resumed) == Batches(full.begin() + stop, full.end()));
      }
    }
  }
}

TEST_CASE("a state taken on one rank resumes another at the same step") {
  LoaderOptions rank0 = Options("chunks:3");
  rank0.shard = {0, 2, false};
  LoaderOptions rank1 = rank0;
  rank1.shard.rank = 1;
  Loader a = Loader::Open(TestFile(), rank0);
  a.SetEpoch(2);
  a.Next();
  a.Next();
  Loader b = Loader::Open(TestFile(), rank1);
  const Batches full = ReadEpoch(b, 2);
  Loader c = Loader::Open(TestFile(), rank1);
  c.Restore(a.State());
  CHECK(ReadRest(c) == Batches(full.begin() + 2, full.end()));
}

TEST_CASE("a state from another seed, file geometry or order option is refused") {
  Loader loader = Loader::Open(TestFile(), Options("random"));
  loader.SetEpoch(1);
  loader.Next();
  const LoaderState state = loader.State();

  LoaderOptions other_seed = Options("random");
  other_seed.seed = 5;
  CHECK_THROWS_AS(Loader::Open(TestFile(), other_seed).Restore(state), Error);
  CHECK_THROWS_AS(Loader::Open(TestFile(), Options("random", 11)).Restore(state), Error);
  CHECK_THROWS_AS(Loader::Open(TestFile(), Options("chunks:3")).Restore(state), Error);
  LoaderOptions echo = Options("random");
  echo.echo = 2;
  CHECK_THROWS_AS(Loader::Open(TestFile(), echo).Restore(state), Error);

  TempFolder folder;
  const std::string other_file = folder / "other.h5";
  testing::WriteH5feedFile(other_file, kSamples, {4, 4, 3}, 8, Compression::Parse("none"));
  try {
    Loader::Open(other_file, Options("random")).Restore(state);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
  }
  LoaderState beyond = state;
  beyond.step = loader.batches_per_epoch() + 1;
  CHECK_THROWS_AS(loader.Restore(beyond), Error);

  // Options that do not change the rows keep the state valid.
  LoaderOptions faster = Options("random");
  faster.threads = 1;
  faster.slots = 5;
  faster.cache_bytes = 1 << 20;
  faster.normalize = true;
  Loader same = Loader::Open(TestFile(), faster);
  CHECK_NOTHROW(same.Restore(state));
}

TEST_CASE("chunks:W reads each chunk once per epoch with a cache of two windows, random does not") {
  // 64 chunks; chunks:4 with batches of 16 spans a window in 4 steps, and the steps in flight
  // (3 slots, 2 prefetched) reach at most into the next window: 8 chunks of cache suffice.
  static TempFolder folder;
  const std::string path = folder / "many_chunks.h5";
  testing::WriteH5feedFile(path, 64 * kChunk, {4, 4, 3}, kChunk, Compression::Parse("zstd"));
  const int64_t chunk_bytes = kChunk * 48;
  for (const char* sampler : {"chunks:4", "random"}) {
    LoaderOptions options = Options(sampler, 16);
    options.cache_bytes = 8 * chunk_bytes;
    Loader loader = Loader::Open(path, options);
    for (int64_t epoch = 0; epoch < 2; ++epoch) ReadEpoch(loader, epoch);
    const uint64_t ahead_before_last = loader.stats().chunk_reads_ahead;
    ReadEpoch(loader, 2);
    // Reads made during epoch 2 for epoch 3's start belong to an epoch this test never reads.
    const uint64_t reads =
        loader.stats().chunk_reads - (loader.stats().chunk_reads_ahead - ahead_before_last);
    CAPTURE(sampler);
    if (std::string(sampler) == "random") {
      CHECK(reads > 3 * 64 * 4);  // most of a batch's 16 rows sit in different chunks
    } else {
      // Each chunk once per epoch; chunks still cached at an epoch's end (8 at most) may be
      // hits at the next epoch's start.
      CHECK(reads <= 3 * 64);
      CHECK(reads >= 3 * 64 - 2 * 8);
    }
  }
}

TEST_CASE("the next epoch's first window is loaded while an epoch ends") {
  // 64 chunks, a cache of 24: chunks:4 with batches of 16 keeps about 12 in use, so the next
  // epoch's first window (4 chunks, its steps 0-3) fits beside them. The end of epoch e is
  // reported once those loads are done, so epoch e + 1's first batch finds its chunks cached:
  // kept (the cache sees them needed again) or, on rank 0 of 2, whose chunks change from one
  // epoch to the next, read ahead.
  static TempFolder folder;
  const std::string path = folder / "next_epoch.h5";
  testing::WriteH5feedFile(path, 64 * kChunk, {4, 4, 3}, kChunk, Compression::Parse("zstd"));
  for (int world_size : {1, 2}) {
    CAPTURE(world_size);
    LoaderOptions options = Options("chunks:4", 16);
    options.cache_bytes = 24 * kChunk * 48;
    options.shard.world_size = world_size;
    Loader loader = Loader::Open(path, options);
    const Batches epoch1 = [&] {
      Loader fresh = Loader::Open(path, options);
      return ReadEpoch(fresh, 1);
    }();
    uint64_t read_ahead = 0;
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      CAPTURE(epoch);
      const uint64_t ahead_before = loader.stats().chunk_reads_ahead;
      ReadEpoch(loader, epoch);
      const LoaderStats ended = loader.stats();
      read_ahead += ended.chunk_reads_ahead - ahead_before;
      loader.SetEpoch(epoch + 1);
      std::optional<Batch> first = loader.Next();
      REQUIRE(first);
      CHECK(loader.stats().cache_misses == ended.cache_misses);
      if (epoch == 0) {  // and the batch loaded ahead is the one epoch 1 delivers anyway
        CHECK(std::vector<int64_t>(first->indices().begin(), first->indices().end()) ==
              epoch1.front());
      }
    }
    if (world_size == 2) CHECK(read_ahead > 0);
    // An epoch other than the expected one is read as always, from chunks loaded on demand.
    CHECK(ReadEpoch(loader, 7).size() == static_cast<size_t>(64 / world_size));
  }
}

TEST_CASE("chunks:W reads each chunk once per epoch when the cache holds the window") {
  LoaderOptions options = Options("chunks:3");
  options.cache_bytes = 1 << 20;
  Loader loader = Loader::Open(TestFile(), options);
  ReadEpoch(loader, 0);
  const LoaderStats stats = loader.stats();
  CHECK(stats.chunk_reads == static_cast<uint64_t>(loader.dataset().chunks));
  CHECK(stats.batches == static_cast<uint64_t>(loader.batches_per_epoch()));
  CHECK(stats.samples == kSamples);
  CHECK(stats.bytes_decoded == static_cast<uint64_t>(loader.dataset().chunks * kChunk * 48));
  CHECK(stats.bytes_read > 0);
  CHECK(stats.wait_seconds >= 0);
}

TEST_CASE("WaitReady says whether Next would wait: it would while the trainer holds every slot") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 40, ImageShape{4, 4, 3}, 8, Compression::Parse("none"));
  LoaderOptions options;
  options.batch_size = 16;
  options.slots = 2;
  Loader loader = Loader::Open(path, options);
  std::optional<Batch> first = loader.Next();
  std::optional<Batch> second = loader.Next();
  // Both slots are held: the third batch cannot be assembled, however long one waits.
  CHECK_FALSE(loader.WaitReady(std::chrono::milliseconds(50)));
  first.reset();
  REQUIRE(loader.WaitReady(std::chrono::seconds(30)));
  std::optional<Batch> third = loader.Next();
  REQUIRE(third);
  CHECK(third->step() == 2);
  CHECK(third->size() == 8);
  // At the end of the epoch Next returns at once, and WaitReady says so.
  CHECK(loader.WaitReady(std::chrono::seconds(30)));
  CHECK_FALSE(loader.Next());
}

}  // namespace
}  // namespace h5feed
