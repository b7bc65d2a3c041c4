#include "pipeline/batch_assembler.h"

#include <doctest/doctest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "lib/memory/float_slots.h"
#include "pipeline/cpu_normalize.h"
#include "pipeline/echo.h"
#include "plain_normalize.h"
#include "sampler/permutation.h"
#include "synthetic_dataset.h"

namespace h5feed::pipeline {
namespace {

using transform::MakeNormalizeParams;
using transform::MakeOutputViews;
using transform::NormalizeParams;

using namespace std::chrono_literals;
using testing::FloatImages;
using testing::Floats;
using testing::NormalizePlain;
using testing::SyntheticDataset;

// `event` is a kCorrupt error saying `what` and, added by the assembler, `where` ("step 4 of
// epoch 2").
void CheckCorruptStep(const PipelineEvent& event, const std::string& what,
                      const std::string& where) {
  REQUIRE(std::holds_alternative<std::exception_ptr>(event));
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(event));
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    const std::string message = error.what();
    CHECK(message.find(what) != std::string::npos);
    CHECK(message.find(where) != std::string::npos);
  }
}

struct RigOptions {
  int64_t samples = 200;
  int64_t chunk_samples = 16;
  ImageShape shape{6, 5, 3};
  int64_t batch = 24;
  int slots = 3;
  int threads = 2;
  int64_t cache_bytes = 1 << 20;
  bool normalize = false;
};

// Everything a run borrows, wired as the loader wires it, over a synthetic dataset.
struct Rig {
  explicit Rig(const RigOptions& o)
      : options(o),
        data(o.samples, o.chunk_samples, o.shape),
        cache(data.chunk_bytes(), o.cache_bytes, cache::EvictionPolicy::kBelady,
              data.LoadFunction()),
        layout(o.batch, o.shape, o.normalize ? FloatImages(o.shape) : memory::SlotContents{}),
        pool(o.slots, layout.bytes(), nullptr),
        gatherer(cache,
                 RowLocator(static_cast<int64_t>(data.labels().size()), o.chunk_samples, o.shape),
                 o.shape.bytes(), data.labels(), {}),
        arena(o.threads) {}

  std::shared_ptr<const EpochPlan> Plan(std::vector<int64_t> order, int64_t epoch = 0,
                                        bool drop_last = false) {
    auto plan = std::make_shared<const EpochPlan>(
        epoch, std::move(order), options.batch, drop_last,
        ChunkRows((data.chunk_samples()) * (data.chunk_count()), data.chunk_samples()));
    cache.SetPlan(plan->access());
    return plan;
  }

  AssemblerResources resources() { return {&cache, &pool, &layout, &gatherer, &arena}; }

  RigOptions options;
  SyntheticDataset data;
  cache::ChunkCache cache;
  memory::SlotLayout layout;
  memory::SlotPool pool;
  BatchGatherer gatherer;
  tbb::task_arena arena;
};

std::vector<int64_t> Shuffled(int64_t n, uint64_t seed) { return sampler::Permutation(n, seed); }

std::vector<int64_t> Rows(const AssembledBatch& batch) {
  return {batch.view.indices.begin(), batch.view.indices.begin() + batch.rows};
}

// Every row of the batch holds the pixels and label of the dataset row it names.
void CheckContents(const SyntheticDataset& data, const AssembledBatch& batch) {
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  for (size_t i = 0; i < static_cast<size_t>(batch.rows); ++i) {
    const int64_t row = batch.view.indices[i];
    CHECK(batch.view.labels[i] == row % 10);
    CHECK(data.Holds(batch.view.images.subspan(i * bytes, bytes), row));
  }
}

// Runs to the end, releasing each batch before asking for the next (a well-behaved trainer).
std::vector<std::vector<int64_t>> Drain(BatchAssembler& assembler, const SyntheticDataset& data,
                                        int64_t first_step = 0) {
  std::vector<std::vector<int64_t>> batches;
  int64_t expected_step = first_step;
  while (true) {
    PipelineEvent event = assembler.Next();
    if (std::holds_alternative<EndOfEpoch>(event)) break;
    REQUIRE(std::holds_alternative<AssembledBatch>(event));
    auto& batch = std::get<AssembledBatch>(event);
    CHECK(batch.step == expected_step++);
    CheckContents(data, batch);
    batches.push_back(Rows(batch));
  }
  return batches;
}

TEST_CASE("every step is delivered in order with its rows' pixels, labels and indices") {
  Rig rig({});
  std::vector<int64_t> order = Shuffled(200, 42);
  BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
  CHECK(assembler.delivered_steps() == 9);
  std::vector<std::vector<int64_t>> batches = Drain(assembler, rig.data);
  REQUIRE(batches.size() == 9);
  for (size_t s = 0; s < batches.size(); ++s) {
    const size_t begin = s * 24;
    const size_t end = std::min<size_t>(order.size(), begin + 24);
    CHECK(batches[s] == std::vector<int64_t>(order.begin() + static_cast<long>(begin),
                                             order.begin() + static_cast<long>(end)));
  }
  // The end repeats; every slot is back once the batches are gone.
  CHECK(std::holds_alternative<EndOfEpoch>(assembler.Next()));
  CHECK(rig.pool.available() == rig.pool.slots());
}

TEST_CASE("one worker thread and one slot deliver the epoch without deadlock") {
  RigOptions options;
  options.threads = 1;
  options.slots = 1;
  options.cache_bytes = 0;  // nothing kept beyond the chunks in use: still correct
  Rig rig(options);
  std::vector<int64_t> order = Shuffled(200, 7);
  BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
  CHECK(Drain(assembler, rig.data).size() == 9);
}

TEST_CASE("two runs read in turns by one trainer never stop each other") {
  // Python's `for a, b in zip(loader_a, loader_b)`: the trainer holds both batches of a pair
  // while it asks for the next pair. The arenas share the process's TBB workers (one here, as
  // on 2 cores): a worker waiting inside one run for a slot only the trainer frees would leave
  // the other run's steps without a thread, and the trainer waiting for them.
  tbb::global_control one_worker(tbb::global_control::max_allowed_parallelism, 2);
  RigOptions options;
  options.samples = 96;
  options.chunk_samples = 8;
  options.batch = 8;
  options.slots = 2;
  options.shape = ImageShape{64, 64, 3};
  Rig a(options);
  Rig b(options);
  // Loads of uneven length, so that the threads meet the two runs in every order.
  auto uneven = [](int64_t chunk) {
    std::this_thread::sleep_for(std::chrono::microseconds((chunk * 7919) % 300));
  };
  a.data.before_load = uneven;
  b.data.before_load = uneven;
  const int rounds = 100;
  std::atomic<int> rounds_done{0};
  std::promise<void> finished;
  std::thread trainer([&] {
    for (int round = 0; round < rounds; ++round) {
      BatchAssembler run_a(a.Plan(Shuffled(96, round)), 0, a.resources(), {});
      BatchAssembler run_b(b.Plan(Shuffled(96, round + 1000)), 0, b.resources(), {});
      std::vector<PipelineEvent> held;
      while (true) {
        PipelineEvent next_a = run_a.Next();
        PipelineEvent next_b = run_b.Next();
        if (!std::holds_alternative<AssembledBatch>(next_a)) break;
        held.clear();  // the previous pair, dropped only once the next one is in hand
        held.push_back(std::move(next_a));
        held.push_back(std::move(next_b));
      }
      rounds_done.fetch_add(1);
    }
    finished.set_value();
  });
  if (finished.get_future().wait_for(60s) != std::future_status::ready) {
    // Nothing can join a trainer stuck for good: say so and end the process.
    std::fprintf(stderr, "two runs read in turns stopped after %d of %d rounds\n",
                 rounds_done.load(), rounds);
    std::fflush(stderr);
    std::_Exit(1);
  }
  trainer.join();
  CHECK(rounds_done.load() == rounds);
}

TEST_CASE("a run resumed at a step delivers exactly the rest of the epoch") {
  Rig rig({});
  std::vector<int64_t> order = Shuffled(200, 3);
  std::vector<std::vector<int64_t>> all;
  {
    BatchAssembler full(rig.Plan(order), 0, rig.resources(), {});
    all = Drain(full, rig.data);
  }
  for (int64_t first : {int64_t{1}, int64_t{5}, int64_t{8}, int64_t{9}}) {
    BatchAssembler resumed(rig.Plan(order), first, rig.resources(), {});
    std::vector<std::vector<int64_t>> rest = Drain(resumed, rig.data, first);
    CHECK(rest == std::vector<std::vector<int64_t>>(all.begin() + first, all.end()));
  }
  CHECK_THROWS_AS(BatchAssembler(rig.Plan(order), 10, rig.resources(), {}), Error);
}

TEST_CASE("echo delivers each loaded batch E times, the same rows reshuffled after the first") {
  RigOptions options;
  options.slots = 6;
  Rig rig(options);
  std::vector<int64_t> order = Shuffled(200, 11);
  AssemblerOptions echo;
  echo.echo = 3;
  echo.seed = 99;
  std::vector<std::vector<int64_t>> batches;
  {
    BatchAssembler assembler(rig.Plan(order, 4), 0, rig.resources(), echo);
    CHECK(assembler.delivered_steps() == 27);
    batches = Drain(assembler, rig.data);
  }
  REQUIRE(batches.size() == 27);
  for (size_t s = 0; s < 9; ++s) {
    const std::vector<int64_t>& loaded = batches[3 * s];
    const size_t begin = s * 24;
    const size_t end = std::min<size_t>(order.size(), begin + 24);
    CHECK(loaded == std::vector<int64_t>(order.begin() + static_cast<long>(begin),
                                         order.begin() + static_cast<long>(end)));
    for (int copy = 1; copy < 3; ++copy) {
      const std::vector<int64_t>& echoed = batches[3 * s + static_cast<size_t>(copy)];
      std::vector<int64_t> permutation = EchoPermutation(static_cast<int64_t>(loaded.size()), 99, 4,
                                                         static_cast<int64_t>(s), copy);
      for (size_t i = 0; i < echoed.size(); ++i) {
        CHECK(echoed[i] == loaded[static_cast<size_t>(permutation[i])]);
      }
      CHECK(echoed != loaded);
    }
  }
  // Resumed mid-echo: the same copies, from the one asked for.
  BatchAssembler resumed(rig.Plan(order, 4), 14, rig.resources(), echo);
  CHECK(Drain(resumed, rig.data, 14) ==
        std::vector<std::vector<int64_t>>(batches.begin() + 14, batches.end()));
  // Fewer slots than copies cannot work.
  RigOptions few;
  few.slots = 2;
  Rig small(few);
  CHECK_THROWS_AS(BatchAssembler(small.Plan(order), 0, small.resources(), echo), Error);
}

// What make_extras saw for one batch, handed out with it.
struct Seen {
  std::vector<int64_t> rows;
  int64_t epoch = 0;
  int copy = 0;
};

TEST_CASE("each delivered batch carries the extras made of its rows, epoch and copy") {
  RigOptions options;
  options.slots = 6;
  Rig rig(options);
  std::vector<int64_t> order = Shuffled(200, 13);
  AssemblerOptions extras;
  extras.echo = 3;
  extras.seed = 7;
  std::atomic<int> made{0};
  extras.make_extras = [&](std::span<const int64_t> indices, int64_t epoch, int copy) {
    ++made;
    return std::shared_ptr<const void>(
        std::make_shared<const Seen>(Seen{{indices.begin(), indices.end()}, epoch, copy}));
  };
  for (int64_t first : {int64_t{0}, int64_t{14}}) {  // from the start; resumed mid-echo
    made = 0;
    BatchAssembler assembler(rig.Plan(order, 5), first, rig.resources(), extras);
    int64_t delivered = 0;
    while (true) {
      PipelineEvent event = assembler.Next();
      if (std::holds_alternative<EndOfEpoch>(event)) break;
      const auto& batch = std::get<AssembledBatch>(event);
      REQUIRE(batch.extras);
      const auto& seen = *std::static_pointer_cast<const Seen>(batch.extras);
      CHECK(seen.rows == Rows(batch));  // the copy's own rows, its permutation applied
      CHECK(seen.epoch == 5);
      CHECK(seen.copy == batch.copy);
      ++delivered;
    }
    CHECK(delivered == 27 - first);
    CHECK(made == 27 - first);  // once per delivered batch: none for a copy skipped on resume
  }
  // Without make_extras a batch carries none.
  BatchAssembler plain(rig.Plan(order), 0, rig.resources(), {});
  PipelineEvent event = plain.Next();
  REQUIRE(std::holds_alternative<AssembledBatch>(event));
  CHECK(!std::get<AssembledBatch>(event).extras);
}

TEST_CASE("an error of make_extras is delivered in its step's place") {
  Rig rig({});
  std::vector<int64_t> order(200);
  std::iota(order.begin(), order.end(), 0);
  AssemblerOptions extras;
  extras.make_extras = [](std::span<const int64_t> indices, int64_t, int) {
    if (indices.front() == 72) throw Error(ErrorCode::kCorrupt, "row 72 is damaged");
    return std::shared_ptr<const void>(std::make_shared<const int>(0));
  };
  BatchAssembler assembler(rig.Plan(order, 1), 0, rig.resources(), extras);
  for (int64_t s = 0; s < 3; ++s) {  // rows 0..71
    PipelineEvent event = assembler.Next();
    REQUIRE(std::holds_alternative<AssembledBatch>(event));
    CHECK(std::get<AssembledBatch>(event).step == s);
  }
  CheckCorruptStep(assembler.Next(), "row 72 is damaged", "step 3 of epoch 1");
}

TEST_CASE("normalized batches hold NormalizeBatch of their images") {
  RigOptions options;
  options.normalize = true;
  Rig rig(options);
  const float mean[3] = {0.5f, 0.4f, 0.3f};
  const float std[3] = {0.2f, 0.25f, 0.3f};
  AssemblerOptions normalize;
  const NormalizeParams params = MakeNormalizeParams(mean, std, 3, 3);
  normalize.output = MakeOutputViews(params, options.shape, OutputOptions{}, 0);
  normalize.echo = 2;
  BatchAssembler assembler(rig.Plan(Shuffled(200, 5)), 0, rig.resources(), normalize);
  tbb::task_arena arena(1);
  int batches = 0;
  while (true) {
    PipelineEvent event = assembler.Next();
    if (std::holds_alternative<EndOfEpoch>(event)) break;
    auto& batch = std::get<AssembledBatch>(event);
    CheckContents(rig.data, batch);
    std::vector<float> expected(static_cast<size_t>(batch.rows * options.shape.bytes()));
    arena.execute(
        [&] { NormalizePlain(batch.view.images, options.shape, batch.rows, params, expected); });
    CHECK(std::equal(expected.begin(), expected.end(), Floats(batch.view.output).begin()));
    ++batches;
  }
  CHECK(batches == 18);
}

TEST_CASE("an error delivers the batches before the failing step, then the error") {
  Rig rig({});
  std::vector<int64_t> order(200);
  std::iota(order.begin(), order.end(), 0);
  rig.data.Corrupt(6);  // rows 96..111: steps 4 (rows 96..119)
  BatchAssembler assembler(rig.Plan(order, 2), 0, rig.resources(), {});
  for (int64_t s = 0; s < 4; ++s) {
    PipelineEvent event = assembler.Next();
    REQUIRE(std::holds_alternative<AssembledBatch>(event));
    CHECK(std::get<AssembledBatch>(event).step == s);
  }
  CheckCorruptStep(assembler.Next(), "chunk 6", "step 4 of epoch 2");
  // The error repeats, and nothing else comes.
  CHECK(std::holds_alternative<std::exception_ptr>(assembler.Next()));
}

TEST_CASE("a trainer holding every slot stalls the pipeline until it releases one") {
  RigOptions options;
  options.slots = 2;
  Rig rig(options);
  std::vector<int64_t> order = Shuffled(200, 8);
  BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
  std::vector<PipelineEvent> held;
  held.push_back(assembler.Next());
  held.push_back(assembler.Next());
  CHECK(rig.pool.available() == 0);
  auto third = std::async(std::launch::async, [&] { return assembler.Next(); });
  CHECK(third.wait_for(200ms) == std::future_status::timeout);
  held.erase(held.begin());  // releases step 0's slot
  REQUIRE(third.wait_for(10s) == std::future_status::ready);
  PipelineEvent event = third.get();
  REQUIRE(std::holds_alternative<AssembledBatch>(event));
  CHECK(std::get<AssembledBatch>(event).step == 2);
}

TEST_CASE("destroying a run with batches in flight and every slot held is clean") {
  RigOptions options;
  options.slots = 3;
  Rig rig(options);
  std::vector<int64_t> order = Shuffled(200, 9);
  std::vector<PipelineEvent> held;
  {
    BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
    held.push_back(assembler.Next());
    std::this_thread::sleep_for(50ms);  // let the pipeline fill the other slots and wait
  }  // the run waits for a slot here: the destructor must wake it and join
  REQUIRE(held.size() == 1);
  CheckContents(rig.data, std::get<AssembledBatch>(held[0]));  // still valid
  held.clear();
  CHECK(rig.pool.available() == 3);
}

TEST_CASE("runs stopped at any moment release every slot and never hang") {
  RigOptions options;
  options.samples = 400;
  options.slots = 3;
  Rig rig(options);
  for (int round = 0; round < 40; ++round) {
    BatchAssembler assembler(rig.Plan(Shuffled(400, round)), 0, rig.resources(), {});
    for (int i = 0; i < round % 5; ++i) assembler.Next();
  }
  CHECK(rig.pool.available() == 3);
}

TEST_CASE("prefetching reads every chunk of a sequential epoch once") {
  RigOptions options;
  options.samples = 320;
  options.batch = 16;  // one chunk per step
  Rig rig(options);
  std::vector<int64_t> order(320);
  std::iota(order.begin(), order.end(), 0);
  BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
  CHECK(Drain(assembler, rig.data).size() == 20);
  const cache::CacheStats stats = rig.cache.stats();
  CHECK(stats.loads == 20);
  CHECK(rig.data.loads() == 20);
  CHECK(stats.misses + stats.prefetches == 20);
}

TEST_CASE("prefetching waits until the run's first step has loaded its chunks") {
  // Steps of 4 chunks each; slow loads. Before, prefetches for steps 1 and 2 started with the
  // run and took the second thread while step 0 loaded its chunks one by one.
  RigOptions options;
  options.samples = 320;
  options.batch = 64;
  Rig rig(options);
  std::mutex mutex;
  std::vector<std::pair<int64_t, uint64_t>> loads;  // (chunk, prefetches started before it)
  rig.data.before_load = [&](int64_t chunk) {
    const uint64_t prefetches = rig.cache.stats().prefetches;
    {
      std::lock_guard lock(mutex);
      loads.emplace_back(chunk, prefetches);
    }
    std::this_thread::sleep_for(3ms);
  };
  std::vector<int64_t> order(320);
  std::iota(order.begin(), order.end(), 0);
  BatchAssembler assembler(rig.Plan(order), 0, rig.resources(), {});
  CHECK(Drain(assembler, rig.data).size() == 5);
  std::lock_guard lock(mutex);
  int step0_loads = 0;
  for (const auto& load : loads) {
    const auto chunk = load.first;  // a name, not a binding: CAPTURE's lambda takes it
    const auto prefetches = load.second;
    if (chunk >= 4) continue;
    ++step0_loads;
    CAPTURE(chunk);
    CHECK(prefetches == 0);
  }
  CHECK(step0_loads == 4);
  CHECK(rig.cache.stats().loads == 20);
}

}  // namespace
}  // namespace h5feed::pipeline
