// The Loader's elastic resume, through its public contract: a state saved by N ranks
// (Loader::State of rank 0) restores on M ranks mid-epoch; together the old ranks' batches and
// the new ones' deliver every row of the epoch once (but for the equal-count padding or
// drop_last), in equal counts per rank, each row with the crop and flip it would have had;
// the next epoch is the plain M-rank order. Mismatched and damaged states are refused, saying
// what differs; states of h5feed before elastic resume still restore on their world size.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"
#include "transform/random_streams.h"

namespace h5feed {
namespace {

using testing::TempFolder;
using Rows = std::vector<int64_t>;
using Counts = std::map<int64_t, int64_t>;

constexpr int64_t kSamples = 203;  // divisible by none of 2, 3, 4, 5
constexpr int64_t kEpoch = 3;

const std::string& TestFile() {
  static TempFolder folder;
  static const std::string path = [] {
    std::string p = folder / "elastic.h5";
    testing::WriteH5feedFile(p, kSamples, {4, 4, 3}, 16, Compression::Parse("zstd"));
    return p;
  }();
  return path;
}

LoaderOptions Options(const std::string& sampler, int rank, int world, bool drop_last = false,
                      int echo = 1) {
  LoaderOptions options;
  options.batch_size = 7;
  options.sampler = SamplerOptions::Parse(sampler);
  options.seed = 77;
  options.threads = 1;
  options.slots = 2 * echo;
  options.echo = echo;
  options.shard = {rank, world, drop_last};
  options.on_warning = [](const std::string&) {};  // small caches are the point here
  options.open_probe = false;                      // dozens of opens of one good file
  return options;
}

// A job of `world` loaders, one per rank.
std::vector<Loader> OpenJob(const LoaderOptions& base, int world) {
  std::vector<Loader> job;
  for (int rank = 0; rank < world; ++rank) {
    LoaderOptions options = base;
    options.shard = {rank, world, base.shard.drop_last};
    job.push_back(Loader::Open(TestFile(), options));
  }
  return job;
}

// Up to `steps` batches of each rank (all of the rest with -1), their rows counted; returns
// the batch count of each rank.
std::vector<int64_t> Read(std::vector<Loader>& job, int64_t steps, Counts& rows) {
  std::vector<int64_t> batches;
  for (Loader& loader : job) {
    int64_t n = 0;
    for (; steps < 0 || n < steps; ++n) {
      std::optional<Batch> batch = loader.Next();
      if (!batch) break;
      CHECK(batch->step() == loader.State().step - 1);
      for (int64_t row : batch->indices()) ++rows[row];
    }
    batches.push_back(n);
  }
  return batches;
}

TEST_CASE("a state saved by N ranks resumes on M: every row of the epoch once, equal counts") {
  for (std::string sampler : {"sequential", "random", "chunks:2", "quasi:3"}) {
    for (bool drop_last : {false, true}) {
      for (const auto& worlds :
           std::vector<std::pair<int, int>>{{3, 2}, {2, 3}, {4, 2}, {1, 4}, {3, 1}, {2, 5}}) {
        // Names, not bindings: CAPTURE's lambda takes them (clang 14 cannot capture a binding).
        const int old_world = worlds.first;
        const int new_world = worlds.second;
        const LoaderOptions base = Options(sampler, 0, 1, drop_last);
        std::vector<Loader> before = OpenJob(base, old_world);
        const int64_t epoch_steps = before[0].batches_per_epoch();
        for (int64_t stop : {int64_t{1}, epoch_steps / 2}) {
          CAPTURE(sampler);
          CAPTURE(drop_last);
          CAPTURE(old_world);
          CAPTURE(new_world);
          CAPTURE(stop);
          Counts rows;
          for (Loader& loader : before) loader.SetEpoch(kEpoch);
          Read(before, stop, rows);
          const LoaderState state = before[0].State();
          for (const Loader& loader : before) {  // nothing in a state is rank-local
            CHECK(loader.State().step == state.step);
            CHECK(loader.State().fingerprint == state.fingerprint);
            CHECK(loader.State().world_size == old_world);
          }
          std::vector<Loader> after = OpenJob(base, new_world);
          for (Loader& loader : after) loader.Restore(state);
          Counts rest;
          const std::vector<int64_t> batches = Read(after, -1, rest);
          CHECK(std::count(batches.begin(), batches.end(), batches[0]) == new_world);
          for (const Loader& loader : after) {
            CHECK(loader.State().step == stop + batches[0]);
            CHECK(loader.batches_per_epoch() == loader.State().step);
          }
          // The rest holds each row not yet delivered once (the old ranks' padding does not
          // come again), plus only the new deal's padding.
          int64_t rest_repeats = 0;
          for (const auto& [row, n] : rest) {
            CHECK(rows.count(row) == 0);
            rest_repeats += n - 1;
          }
          CHECK(rest_repeats <= (drop_last ? 0 : new_world - 1));
          for (const auto& [row, n] : rest) rows[row] += n;
          int64_t repeats = 0;
          for (const auto& [row, n] : rows) repeats += n - 1;
          const int64_t most = (old_world - 1) + (new_world - 1);
          if (drop_last) {
            CHECK(repeats == 0);
            CHECK(static_cast<int64_t>(rows.size()) >= kSamples - most);
          } else {
            CHECK(static_cast<int64_t>(rows.size()) == kSamples);
            CHECK(repeats <= most);
          }
        }
      }
    }
  }
}

TEST_CASE("echo: a step whose copies were not all delivered counts as delivered") {
  const LoaderOptions base = Options("chunks:2", 0, 1, false, 2);
  std::vector<Loader> before = OpenJob(base, 2);
  for (int64_t stop : {int64_t{3}, int64_t{4}}) {
    CAPTURE(stop);
    Counts rows;
    for (Loader& loader : before) loader.SetEpoch(kEpoch);
    Read(before, stop, rows);
    std::vector<Loader> after = OpenJob(base, 3);
    for (Loader& loader : after) loader.Restore(before[0].State());
    const std::vector<int64_t> batches = Read(after, -1, rows);
    CHECK(std::count(batches.begin(), batches.end(), batches[0]) == 3);
    CHECK(batches[0] % 2 == 0);  // whole echoed steps
    CHECK(static_cast<int64_t>(rows.size()) == kSamples);
    for (const auto& [row, n] : rows) CHECK(n <= 2 * 3);
  }
}

TEST_CASE("each row keeps its crop and flip when the rest of its epoch moves to another rank") {
  LoaderOptions base = Options("chunks:2", 0, 1);
  base.normalize = true;
  base.output.augment.random_resized_crop.height = 3;
  base.output.augment.random_resized_crop.width = 3;
  base.output.augment.random_flip = true;
  // Every row's normalized image in the uninterrupted 3-rank epoch.
  std::map<int64_t, std::vector<float>> reference;
  for (Loader& loader : OpenJob(base, 3)) {
    loader.SetEpoch(kEpoch);
    while (auto batch = loader.Next()) {
      const size_t each = batch->normalized_images().size() / static_cast<size_t>(batch->size());
      for (int64_t i = 0; i < batch->size(); ++i) {
        const float* image = batch->normalized_images().data() + i * each;
        reference[batch->indices()[i]] = std::vector<float>(image, image + each);
      }
    }
  }
  std::vector<Loader> before = OpenJob(base, 3);
  for (Loader& loader : before) loader.SetEpoch(kEpoch);
  Counts rows;
  Read(before, 4, rows);
  int64_t compared = 0;
  for (Loader& loader : OpenJob(base, 2)) {
    loader.Restore(before[0].State());
    while (auto batch = loader.Next()) {
      const size_t each = batch->normalized_images().size() / static_cast<size_t>(batch->size());
      for (int64_t i = 0; i < batch->size(); ++i) {
        const float* image = batch->normalized_images().data() + i * each;
        CHECK(std::vector<float>(image, image + each) == reference.at(batch->indices()[i]));
        ++compared;
      }
    }
  }
  CHECK(compared >= kSamples - 3 * 4 * 7);
}

TEST_CASE("after the change, states chain: resized again, or resumed on the same size") {
  const LoaderOptions base = Options("quasi:2", 0, 1);
  std::vector<Loader> first = OpenJob(base, 3);
  Counts rows;
  for (Loader& loader : first) loader.SetEpoch(kEpoch);
  Read(first, 3, rows);
  std::vector<Loader> second = OpenJob(base, 2);
  for (Loader& loader : second) loader.Restore(first[0].State());
  Read(second, 2, rows);
  const LoaderState state = second[0].State();
  CHECK(state.step == 5);
  CHECK(state.world_size == 2);
  CHECK(state.stretches == std::vector<EpochStretch>{{3, 3}});

  // On the same size, the batches are those the 2-rank job went on to deliver.
  std::vector<Rows> went_on;
  for (Loader& loader : second) {
    while (auto batch = loader.Next())
      went_on.emplace_back(batch->indices().begin(), batch->indices().end());
  }
  std::vector<Rows> resumed;
  for (Loader& loader : OpenJob(base, 2)) {
    loader.Restore(state);
    while (auto batch = loader.Next())
      resumed.emplace_back(batch->indices().begin(), batch->indices().end());
  }
  CHECK(resumed == went_on);

  // On 4 ranks, the rest of the epoch once more.
  std::vector<Loader> third = OpenJob(base, 4);
  for (Loader& loader : third) loader.Restore(state);
  CHECK(third[0].State().stretches == std::vector<EpochStretch>{{3, 3}, {2, 2}});
  Read(third, -1, rows);
  CHECK(static_cast<int64_t>(rows.size()) == kSamples);
  int64_t repeats = 0;
  for (const auto& [row, n] : rows) repeats += n - 1;
  CHECK(repeats <= 2 + 1 + 3);

  // The next epoch is the plain 4-rank order.
  std::vector<Loader> fresh = OpenJob(base, 4);
  for (size_t rank = 0; rank < 4; ++rank) {
    third[rank].SetEpoch(kEpoch + 1);
    fresh[rank].SetEpoch(kEpoch + 1);
    CHECK(third[rank].State().stretches.empty());
    CHECK(third[rank].batches_per_epoch() == fresh[rank].batches_per_epoch());
    while (auto batch = fresh[rank].Next()) {
      auto other = third[rank].Next();
      REQUIRE(other);
      CHECK(Rows(other->indices().begin(), other->indices().end()) ==
            Rows(batch->indices().begin(), batch->indices().end()));
    }
    CHECK(!third[rank].Next());
  }
}

TEST_CASE("a state from the end of an epoch leaves the new ranks nothing of it") {
  const LoaderOptions base = Options("random", 0, 1);
  std::vector<Loader> before = OpenJob(base, 3);
  Counts rows;
  for (Loader& loader : before) loader.SetEpoch(kEpoch);
  Read(before, -1, rows);
  for (Loader& loader : OpenJob(base, 2)) {
    loader.Restore(before[0].State());
    CHECK(!loader.Next());
    CHECK(loader.State().step == before[0].State().step);
    loader.SetEpoch(kEpoch + 1);
    CHECK(loader.Next());
  }
}

// The message of the Error that Restore(state) throws on a loader opened with `options`.
std::string Refusal(const LoaderOptions& options, const LoaderState& state) {
  try {
    Loader::Open(TestFile(), options).Restore(state);
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return error.what();
  }
  FAIL("expected Restore to refuse the state");
  return "";
}

bool Says(const std::string& message, const std::string& part) {
  INFO(message);
  return message.find(part) != std::string::npos;
}

TEST_CASE("a mismatched or damaged state is refused, saying what differs") {
  Loader loader = Loader::Open(TestFile(), Options("chunks:2", 0, 3));
  loader.SetEpoch(kEpoch);
  loader.Next();
  loader.Next();
  const LoaderState state = loader.State();

  LoaderOptions other = Options("chunks:4", 0, 2);
  other.batch_size = 9;
  const std::string differs = Refusal(other, state);
  CHECK(Says(differs, "batch_size 7 in the state, 9 here"));
  CHECK(Says(differs, "sampler chunks:2 in the state, chunks:4 here"));
  CHECK(!Says(differs, "echo"));

  LoaderState altered = state;
  altered.fingerprint ^= 1;
  CHECK(Says(Refusal(Options("chunks:2", 0, 3), altered), "altered or damaged"));
  LoaderState no_ranks = state;
  no_ranks.world_size = -2;
  CHECK(Says(Refusal(Options("chunks:2", 0, 3), no_ranks), "world_size is -2"));
  LoaderState empty_stretch = state;
  empty_stretch.stretches = {{4, 0}};
  CHECK(Says(Refusal(Options("chunks:2", 0, 3), empty_stretch), "stretch 0"));
  LoaderState long_stretch = state;
  long_stretch.stretches = {{4, 1000}};
  long_stretch.step = 1001;
  CHECK(Says(Refusal(Options("chunks:2", 0, 2), long_stretch), "4 ranks for 1000 steps"));
  LoaderState beyond = state;
  beyond.step = 1000;
  CHECK(Says(Refusal(Options("chunks:2", 0, 3), beyond), "step 1000 is outside"));
  CHECK(Says(Refusal(Options("chunks:2", 0, 2), beyond), "stretch 0"));
}

// What an h5feed from before elastic resume saved: {epoch, step, seed, fingerprint}, the
// fingerprint over the geometry and options with the world size (docs/reader.md).
uint64_t LegacyFingerprint(const LoaderOptions& options) {
  uint64_t hash = 0;
  for (int64_t value : {kSamples, int64_t{4}, int64_t{4}, int64_t{3}, int64_t{16},
                        (kSamples + 15) / 16, options.batch_size, int64_t{options.drop_last_batch},
                        static_cast<int64_t>(options.sampler.kind), options.sampler.window,
                        int64_t{options.shard.world_size}, int64_t{options.shard.drop_last},
                        int64_t{options.echo}}) {
    hash = transform::SplitMix64(hash ^ static_cast<uint64_t>(value)).Next();
  }
  return hash;
}

TEST_CASE("a state saved before elastic resume restores on its own world size only") {
  const LoaderOptions options = Options("random", 1, 2);
  Loader reference = Loader::Open(TestFile(), options);
  reference.SetEpoch(kEpoch);
  for (int i = 0; i < 3; ++i) reference.Next();
  LoaderState legacy;  // world_size 0, no stretches, no order key
  legacy.epoch = kEpoch;
  legacy.step = 3;
  legacy.seed = options.seed;
  legacy.fingerprint = LegacyFingerprint(options);
  Loader resumed = Loader::Open(TestFile(), options);
  resumed.Restore(legacy);
  while (auto batch = reference.Next()) {
    auto other = resumed.Next();
    REQUIRE(other);
    CHECK(Rows(other->indices().begin(), other->indices().end()) ==
          Rows(batch->indices().begin(), batch->indices().end()));
  }
  CHECK(Says(Refusal(Options("random", 0, 3), legacy), "before elastic resume"));
}

}  // namespace
}  // namespace h5feed
