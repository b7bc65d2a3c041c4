// RunEnd (lib/pipeline/run_end.h), the one record of how a run ended, and BatchQueue, which
// holds it: the first end wins, and it is handed out after the last batch, then again at every
// later ask.

#include "pipeline/run_end.h"

#include <doctest/doctest.h>

#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "pipeline/batch_queue.h"

namespace h5feed::pipeline {
namespace {

std::string MessageOf(const PipelineEvent& event) {
  REQUIRE(std::holds_alternative<std::exception_ptr>(event));
  try {
    std::rethrow_exception(std::get<std::exception_ptr>(event));
  } catch (const std::exception& error) {
    return error.what();
  }
}

AssembledBatch BatchOf(memory::SlotPool& pool, int64_t step) {
  std::optional<memory::SlotLease> lease = pool.Acquire(std::stop_token{});
  REQUIRE(lease);
  AssembledBatch batch;
  batch.lease = std::move(*lease);
  batch.step = step;
  return batch;
}

TEST_CASE("the first end recorded is the run's, and every ask gets it again") {
  RunEnd end;
  CHECK_FALSE(end.reached());
  CHECK(end.Record(std::make_exception_ptr(std::runtime_error("step 4 failed"))));
  CHECK(end.reached());
  CHECK_FALSE(end.Record(EndOfEpoch{}));
  CHECK_FALSE(end.Record(std::make_exception_ptr(std::runtime_error("step 5 failed"))));
  for (int ask = 0; ask < 3; ++ask) CHECK(MessageOf(end.As<PipelineEvent>()) == "step 4 failed");

  RunEnd epoch_end;
  CHECK(epoch_end.Record(EndOfEpoch{}));
  CHECK_FALSE(epoch_end.Record(std::make_exception_ptr(std::runtime_error("late"))));
  CHECK(std::holds_alternative<EndOfEpoch>(epoch_end.As<PipelineEvent>()));
}

TEST_CASE("the queue hands out every batch before the end, then the end at every Pop") {
  memory::SlotPool pool(3, 64, nullptr);
  BatchQueue queue;
  queue.Push(BatchOf(pool, 0));
  queue.Push(BatchOf(pool, 1));
  CHECK(queue.End(std::make_exception_ptr(std::runtime_error("step 2 failed"))));
  CHECK_FALSE(queue.End(EndOfEpoch{}));  // the run already ended
  CHECK_FALSE(queue.ended());            // batches are still to be taken
  for (int64_t step = 0; step < 2; ++step) {
    PipelineEvent event = queue.Pop();
    REQUIRE(std::holds_alternative<AssembledBatch>(event));
    CHECK(std::get<AssembledBatch>(event).step == step);
  }
  CHECK(queue.ended());
  for (int ask = 0; ask < 3; ++ask) {
    CHECK(queue.WaitFor(std::chrono::milliseconds(0)));
    CHECK(MessageOf(queue.Pop()) == "step 2 failed");
  }
}

TEST_CASE("a batch pushed after the run's end is dropped and its slot returned") {
  memory::SlotPool pool(2, 64, nullptr);
  BatchQueue queue;
  CHECK(queue.End(EndOfEpoch{}));
  queue.Push(BatchOf(pool, 3));
  CHECK(pool.available() == 2);
  CHECK(std::holds_alternative<EndOfEpoch>(queue.Pop()));
}

TEST_CASE("a consumer waiting in Pop wakes at the run's end") {
  BatchQueue queue;
  CHECK_FALSE(queue.WaitFor(std::chrono::milliseconds(1)));
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue.End(EndOfEpoch{});
  });
  CHECK(std::holds_alternative<EndOfEpoch>(queue.Pop()));
  producer.join();
  CHECK(std::holds_alternative<EndOfEpoch>(queue.Pop()));
}

}  // namespace
}  // namespace h5feed::pipeline
