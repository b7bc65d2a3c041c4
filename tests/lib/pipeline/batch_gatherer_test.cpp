#include "pipeline/batch_gatherer.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "pipeline/row_copy.h"
#include "support/caught_error.h"
#include "synthetic_dataset.h"

namespace h5feed::pipeline {
namespace {

using testing::SyntheticDataset;

// The gatherer's options these tests set: skipping, where warnings go, and the row check.
BatchGatherer::Options Gathering(bool skip_corrupt_chunks, WarningFunction warn,
                                 BatchGatherer::RowCheck check_row = nullptr) {
  BatchGatherer::Options options;
  options.skip_corrupt_chunks = skip_corrupt_chunks;
  options.warn = std::move(warn);
  options.check_row = std::move(check_row);
  return options;
}

// A slot-sized buffer with its layout, aligned as SlotLayout asks.
struct TestSlot {
  TestSlot(int64_t capacity, const ImageShape& shape)
      : layout(capacity, shape, memory::SlotContents{}), storage(layout.bytes() + 256) {
    auto base = reinterpret_cast<uintptr_t>(storage.data());
    view = layout.View({storage.data() + (256 - base % 256) % 256, layout.bytes()});
  }
  memory::SlotLayout layout;
  std::vector<uint8_t> storage;
  memory::SlotView view;
};

TEST_CASE("rows are gathered from their chunks with their labels, in the batch's order") {
  SyntheticDataset data(100, 8, {4, 3, 3});
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 8, data.shape()),
                         data.shape().bytes(), data.labels(), {});
  TestSlot slot(10, data.shape());
  const std::vector<int64_t> rows = {99, 3, 50, 4, 17, 96, 0, 51};
  tbb::task_arena arena(2);
  int64_t kept = 0;
  arena.execute([&] { kept = gatherer.Gather(rows, 0, slot.view); });
  REQUIRE(kept == 8);
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(data.Holds(slot.view.images.subspan(i * bytes, bytes), rows[i]));
    CHECK(slot.view.indices[i] == rows[i]);
    CHECK(slot.view.labels[i] == rows[i] % 10);
  }
  // 99 and 96 share chunk 12, 3/4/0 chunk 0, 50/51 chunk 6, 17 chunk 2: each read once.
  CHECK(data.loads() == 4);
  CHECK(cache.stats().misses == 4);
}

TEST_CASE("a chunk another task is loading is gathered last, after the chunks nobody loads") {
  // Chunk 0's load (started by another thread) ends only once chunk 1 is loaded. A gather
  // that waited for chunk 0 before loading chunk 1 would wait out the 10 s deadline.
  SyntheticDataset data(16, 8, {2, 2, 3});
  std::atomic<bool> chunk1_loaded{false};
  std::atomic<bool> timed_out{false};
  std::latch chunk0_started(1);
  auto load = [&](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
    if (chunk == 0) {
      chunk0_started.count_down();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!chunk1_loaded.load()) {
        if (std::chrono::steady_clock::now() > deadline) {
          timed_out = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    cache::LoadResult result = data.Load(chunk, target.Buffer());
    if (chunk == 1) chunk1_loaded = true;
    return result;
  };
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru, load);
  std::thread other([&] { cache.Get(0, 0); });
  chunk0_started.wait();
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 8, data.shape()),
                         data.shape().bytes(), data.labels(), {});
  TestSlot slot(6, data.shape());
  const std::vector<int64_t> rows = {2, 9, 0, 15, 7, 8};
  tbb::task_arena arena(1);  // one thread: chunk 0's group comes first in its loop
  int64_t kept = 0;
  arena.execute([&] { kept = gatherer.Gather(rows, 0, slot.view); });
  other.join();
  CHECK_FALSE(timed_out.load());
  REQUIRE(kept == 6);
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(data.Holds(slot.view.images.subspan(i * bytes, bytes), rows[i]));
  }
  CHECK(data.loads() == 2);
}

TEST_CASE("a slot of several MiB, written with streaming stores, gets every row exactly") {
  // Rows of 4,551 bytes: most start at no multiple of 16 within the slot.
  SyntheticDataset data(1200, 50, {37, 41, 3});
  cache::ChunkCache cache(data.chunk_bytes(), 64 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 50, data.shape()),
                         data.shape().bytes(), data.labels(), {});
  TestSlot slot(1000, data.shape());
  const auto bytes = static_cast<size_t>(data.shape().bytes());
#if defined(__SSE2__)
  REQUIRE(SlotWritesFor(slot.view.images.size()) == SlotWrites::kStreaming);
#endif
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < 1000; ++i) rows.push_back((i * 577 + 3) % 1200);  // all distinct
  tbb::task_arena arena(2);
  int64_t kept = 0;
  arena.execute([&] { kept = gatherer.Gather(rows, 0, slot.view); });
  REQUIRE(kept == 1000);
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    REQUIRE(data.Holds(slot.view.images.subspan(i * bytes, bytes), rows[i]));
    REQUIRE(slot.view.indices[i] == rows[i]);
  }
}

TEST_CASE("a corrupt chunk fails the gather with its error") {
  SyntheticDataset data(40, 4, {2, 2, 1});
  data.Corrupt(3);
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
                         data.shape().bytes(), data.labels(), {});
  TestSlot slot(4, data.shape());
  const std::vector<int64_t> rows = {1, 13, 30};
  try {
    gatherer.Gather(rows, 0, slot.view);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).find("chunk 3") != std::string::npos);
  }
  CHECK(gatherer.corrupt_chunks_skipped() == 0);
}

TEST_CASE("with skip_corrupt_chunks a corrupt chunk's rows are left out, once warned") {
  SyntheticDataset data(40, 4, {2, 2, 1});
  data.Corrupt(3);
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  std::vector<std::string> warnings;
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
                         data.shape().bytes(), data.labels(),
                         Gathering(true, [&](const std::string& m) { warnings.push_back(m); }));
  TestSlot slot(6, data.shape());
  const std::vector<int64_t> rows = {12, 1, 13, 30, 15, 2};  // 12, 13, 15 lie in chunk 3
  int64_t kept = gatherer.Gather(rows, 0, slot.view);
  REQUIRE(kept == 3);
  const std::vector<int64_t> expected = {1, 30, 2};
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(slot.view.indices[i] == expected[i]);
    CHECK(slot.view.labels[i] == expected[i] % 10);
    CHECK(data.Holds(slot.view.images.subspan(i * bytes, bytes), expected[i]));
  }
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("chunk 3") != std::string::npos);
  CHECK(gatherer.corrupt_chunks_skipped() == 1);
  CHECK(gatherer.samples_skipped() == 3);

  // A later step skips the known chunk without reading it again, and without a new warning.
  const int64_t loads = data.loads();
  const std::vector<int64_t> more = {14, 0};
  CHECK(gatherer.Gather(more, 1, slot.view) == 1);
  CHECK(slot.view.indices[0] == 0);
  CHECK(data.loads() == loads);  // chunk 0 is cached, chunk 3 known corrupt
  CHECK(warnings.size() == 1);
  CHECK(gatherer.corrupt_chunks_skipped() == 1);
  CHECK(gatherer.samples_skipped() == 4);
}

TEST_CASE("chunks named corrupt when the gatherer is made are warned of then, and never read") {
  SyntheticDataset data(40, 4, {2, 2, 1});  // every chunk sound
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  std::vector<std::string> warnings;
  BatchGatherer::Options options =
      Gathering(true, [&](const std::string& m) { warnings.push_back(m); });
  options.corrupt_chunks = {{3, "row 13 of field x: checksum mismatch"}, {7, "row 29 of field x"}};
  const RowLocator locator(static_cast<int64_t>(data.labels().size()), 4, data.shape());
  BatchGatherer gatherer(cache, locator, data.shape().bytes(), data.labels(), options);
  REQUIRE(warnings.size() == 2);  // before any step
  CHECK(warnings[0] ==
        "skipping corrupt chunk 3 (row 13 of field x: checksum mismatch); its rows are left out "
        "of every batch");
  CHECK(warnings[1].find("skipping corrupt chunk 7 (row 29 of field x)") == 0);
  CHECK(gatherer.corrupt_chunks_skipped() == 2);

  TestSlot slot(6, data.shape());
  const std::vector<int64_t> rows = {12, 1, 29, 30, 15, 2};  // 12, 15: chunk 3; 29, 30: chunk 7
  CHECK(gatherer.Gather(rows, 0, slot.view) == 2);
  CHECK(slot.view.indices[0] == 1);
  CHECK(slot.view.indices[1] == 2);
  CHECK(data.loads() == 1);  // chunk 0 alone: the corrupt ones are not read
  CHECK(warnings.size() == 2);
  CHECK(gatherer.corrupt_chunks_skipped() == 2);
  CHECK(gatherer.samples_skipped() == 4);

  // Naming a chunk the dataset lacks, or any without skip_corrupt_chunks, is the caller's bug.
  options.corrupt_chunks = {{10, "row 40"}};
  CHECK(testing::CaughtError([&] {
          BatchGatherer(cache, locator, data.shape().bytes(), data.labels(), options);
        }).code() == ErrorCode::kInvalidArgument);
  options.corrupt_chunks = {{3, "row 13"}};
  options.skip_corrupt_chunks = false;
  CHECK(testing::CaughtError([&] {
          BatchGatherer(cache, locator, data.shape().bytes(), data.labels(), options);
        }).code() == ErrorCode::kInvalidArgument);
}

TEST_CASE("every row is checked with its bytes before it is copied; a failing row fails its step") {
  SyntheticDataset data(40, 4, {2, 2, 1});
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  std::mutex mutex;
  std::vector<int64_t> checked;
  auto check_row = [&](int64_t row, std::span<const uint8_t> bytes) {
    CHECK(data.Holds(bytes, row));  // the row's own bytes, from its chunk
    std::lock_guard lock(mutex);
    checked.push_back(row);
    if (row == 13) throw Error(ErrorCode::kCorrupt, "row 13: checksum mismatch");
  };
  const std::vector<int64_t> good = {1, 30, 2, 12};
  const std::vector<int64_t> bad = {12, 1, 13, 30, 15, 2};  // 12, 13, 15 lie in chunk 3
  TestSlot slot(6, data.shape());

  BatchGatherer strict(cache,
                       RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
                       data.shape().bytes(), data.labels(), Gathering(false, nullptr, check_row));
  CHECK(strict.Gather(good, 0, slot.view) == 4);
  std::sort(checked.begin(), checked.end());
  CHECK(checked == std::vector<int64_t>{1, 2, 12, 30});
  try {
    strict.Gather(bad, 1, slot.view);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).find("row 13") != std::string::npos);
  }

  // Skipping: the chunk of the failing row is dropped from the step and from every later one.
  std::vector<std::string> warnings;
  BatchGatherer skipping(
      cache, RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
      data.shape().bytes(), data.labels(),
      Gathering(
          true, [&](const std::string& m) { warnings.push_back(m); }, check_row));
  REQUIRE(skipping.Gather(bad, 2, slot.view) == 3);
  const std::vector<int64_t> expected = {1, 30, 2};
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(slot.view.indices[i] == expected[i]);
    CHECK(data.Holds(slot.view.images.subspan(i * bytes, bytes), expected[i]));
  }
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("chunk 3") != std::string::npos);
  CHECK(warnings[0].find("row 13") != std::string::npos);
  const std::vector<int64_t> later = {14, 0};
  CHECK(skipping.Gather(later, 3, slot.view) == 1);
  CHECK(slot.view.indices[0] == 0);
  CHECK(skipping.samples_skipped() == 4);
}

TEST_CASE("with skip_corrupt_chunks a chunk is judged whole before any of its rows is delivered") {
  // Row 13 is damaged; rows 12, 14 and 15 of its chunk pass their own checks. Whichever step
  // meets the chunk first, no step delivers any of them: the answer is the chunk's, not the
  // order the steps' threads reached it in.
  SyntheticDataset data(40, 4, {2, 2, 1});
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  std::atomic<int> checks{0};
  auto check_row = [&](int64_t row, std::span<const uint8_t>) {
    ++checks;
    if (row == 13) throw Error(ErrorCode::kCorrupt, "row 13: checksum mismatch");
  };
  std::vector<std::string> warnings;
  BatchGatherer gatherer(
      cache, RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
      data.shape().bytes(), data.labels(),
      Gathering(
          true, [&](const std::string& m) { warnings.push_back(m); }, check_row));
  TestSlot slot(4, data.shape());
  const std::vector<int64_t> first = {12, 1, 15};  // chunk 3, without its damaged row
  REQUIRE(gatherer.Gather(first, 0, slot.view) == 1);
  CHECK(slot.view.indices[0] == 1);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("chunk 3") != std::string::npos);
  CHECK(warnings[0].find("row 13") != std::string::npos);
  CHECK(gatherer.corrupt_chunks_skipped() == 1);
  CHECK(gatherer.samples_skipped() == 2);

  // A sound chunk is checked whole once; later steps check only the rows they copy.
  const std::vector<int64_t> sound = {4, 5};
  checks = 0;
  CHECK(gatherer.Gather(sound, 1, slot.view) == 2);
  CHECK(checks == 4);
  checks = 0;
  CHECK(gatherer.Gather(sound, 2, slot.view) == 2);
  CHECK(checks == 2);
}

TEST_CASE("with skip_corrupt_chunks a row that does not decode is left out alone, every time") {
  SyntheticDataset data(40, 4, {2, 2, 1});
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          data.LoadFunction());
  std::vector<std::string> warnings;
  BatchGatherer::Options options =
      Gathering(true, [&](const std::string& m) { warnings.push_back(m); });
  const auto bytes = static_cast<size_t>(data.shape().bytes());
  options.make_sample = [&](int64_t, int64_t row, const StoredRow&, std::span<const uint8_t> stored,
                            uint8_t* dest) {
    if (row == 13) throw Error(ErrorCode::kCorrupt, "JPEG: premature end of data");
    std::copy(stored.begin(), stored.end(), dest);
  };
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
                         data.shape().bytes(), data.labels(), std::move(options));
  TestSlot slot(4, data.shape());
  const std::vector<int64_t> rows = {12, 13, 1, 14};
  for (int64_t step = 0; step < 2; ++step) {
    REQUIRE(gatherer.Gather(rows, step, slot.view) == 3);
    const std::vector<int64_t> expected = {12, 1, 14};
    for (size_t i = 0; i < expected.size(); ++i) {
      CHECK(slot.view.indices[i] == expected[i]);
      CHECK(data.Holds(slot.view.images.subspan(i * bytes, bytes), expected[i]));
    }
  }
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("row 13") != std::string::npos);
  CHECK(warnings[0].find("premature end") != std::string::npos);
  CHECK(gatherer.corrupt_chunks_skipped() == 0);
  CHECK(gatherer.samples_skipped() == 2);
}

TEST_CASE("errors other than corruption are never skipped") {
  SyntheticDataset data(16, 4, {2, 2, 1});
  cache::ChunkCache cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kLru,
                          [](int64_t, cache::ChunkCache::LoadTarget&) -> cache::LoadResult {
                            throw Error(ErrorCode::kIo, "pread failed");
                          });
  BatchGatherer gatherer(cache,
                         RowLocator(static_cast<int64_t>(data.labels().size()), 4, data.shape()),
                         data.shape().bytes(), data.labels(), Gathering(true, nullptr));
  TestSlot slot(2, data.shape());
  const std::vector<int64_t> rows = {0, 5};
  CHECK_THROWS_AS(gatherer.Gather(rows, 0, slot.view), Error);
  CHECK(gatherer.corrupt_chunks_skipped() == 0);
}

}  // namespace
}  // namespace h5feed::pipeline
