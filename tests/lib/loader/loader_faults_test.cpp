// Faults injected under a running Loader through its file-access seam (loader/open_loader.h
// with tests/support/faulty_file.h): chunk reads that fail with EIO (the n-th, those touching a
// byte range, every one past a point of the file), come back short (a file truncated after
// Open), come back with flipped bytes, or are slow. What the trainer must see: every batch
// before the failing step, correct; then the error from Next, naming the file, the chunk and
// the step; and a loader that can be destroyed at any moment (after the error, with batches in
// flight and held, or while its reads are slow) without leaving a thread behind.
// Errors from files damaged on disk and from misused options are loader_errors_test.cpp's.

#include <doctest/doctest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "index/dataset_index.h"
#include "loader/open_loader.h"
#include "support/faulty_file.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using namespace std::chrono_literals;
using testing::FaultyFile;
using testing::TempFolder;

constexpr ImageShape kShape{9, 7, 3};
constexpr int64_t kSamples = 160;
constexpr int64_t kChunk = 16;  // 10 chunks; at batch 8, chunk c is first needed by step 2c

// An h5feed file and a FaultyFile over it that the test configures, then lends to the loaders
// it opens; it outlives them, so its counters can be read after they are gone.
struct FaultyLoaderFile {
  explicit FaultyLoaderFile(const char* compression = "none")
      : path(Written(folder / "train.h5", compression)),
        chunks(index::OpenDatasetIndex(path, {}).chunks),
        faulty(io::OpenPosixFile(path)) {}

  // A loader of `path` that reads its chunks through `faulty` (through a borrowing FaultyFile
  // that injects nothing of its own).
  Loader Open(const LoaderOptions& options) {
    return loader::OpenLoader(path, options, [this](const index::DatasetIndex&) {
      return std::make_unique<FaultyFile>(static_cast<const io::RandomAccessFile&>(faulty));
    });
  }

  static std::string Written(const std::string& path, const char* compression) {
    testing::WriteH5feedFile(path, kSamples, kShape, kChunk, Compression::Parse(compression));
    return path;
  }
  uint64_t ChunkBegin(int64_t c) const { return chunks[static_cast<size_t>(c)].address; }
  uint64_t ChunkEnd(int64_t c) const {
    return ChunkBegin(c) + chunks[static_cast<size_t>(c)].stored_bytes;
  }

  TempFolder folder;
  const std::string path;
  const std::vector<index::ChunkLocation> chunks;
  FaultyFile faulty;
};

LoaderOptions Sequential() {
  LoaderOptions options;
  options.batch_size = 8;
  options.sampler = SamplerOptions::Parse("sequential");
  options.threads = 2;
  options.slots = 3;
  return options;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Checks that `batch` holds the rows of sequential step `step`, pixel for pixel.
void CheckSequentialBatch(const Batch& batch, int64_t step) {
  REQUIRE(batch.size() == 8);
  CHECK(batch.step() == step);
  for (size_t i = 0; i < 8; ++i) {
    const int64_t row = step * 8 + static_cast<int64_t>(i);
    CHECK(batch.indices()[i] == row);
    const std::vector<uint8_t> image = testing::FileImage(row, kShape);
    CHECK(std::equal(image.begin(), image.end(),
                     batch.images().begin() + static_cast<long>(i * image.size())));
  }
}

struct Outcome {
  int64_t good_batches = 0;  // delivered, each checked, before the error
  std::optional<Error> error;
};

// Runs epoch 0 until Next throws or the epoch ends; `held` keeps the first two batches (a
// trainer holding every slot would stall the loader, as loader.h says).
Outcome RunEpoch(Loader& loader, std::vector<Batch>* held = nullptr) {
  Outcome outcome;
  loader.SetEpoch(0);
  try {
    while (std::optional<Batch> batch = loader.Next()) {
      CheckSequentialBatch(*batch, outcome.good_batches);
      ++outcome.good_batches;
      if (held && outcome.good_batches <= 2) held->push_back(std::move(*batch));
    }
  } catch (const Error& error) {
    outcome.error = error;
  }
  return outcome;
}

int64_t NumberAfter(const std::string& text, const std::string& word) {
  const size_t at = text.find(word);
  REQUIRE(at != std::string::npos);
  return std::stoll(text.substr(at + word.size()));
}

enum class Fault { kPermanent, kOnce };

// The error a failed read of chunk c must end the epoch with: `code`, naming the file, the
// dataset, the chunk and the failing step, after every step before it. Steps 2c and 2c+1 need
// chunk c: a permanent fault fails the first of them; a fault of one read fails the step that
// made it (each step reads for itself when there is no cache).
void CheckErrorNamesChunk(const Outcome& outcome, const std::string& path, int64_t chunk,
                          ErrorCode code, Fault fault = Fault::kPermanent) {
  REQUIRE(outcome.error);
  const std::string message = outcome.error->what();
  CAPTURE(message);
  CHECK(outcome.error->code() == code);
  CHECK(Contains(message, path));
  CHECK(Contains(message, "/images"));
  CHECK(NumberAfter(message, "chunk ") == chunk);
  const int64_t step = NumberAfter(message, "step ");
  CHECK(outcome.good_batches == step);
  if (fault == Fault::kPermanent) {
    CHECK(step == 2 * chunk);
  } else {
    CHECK((step == 2 * chunk || step == 2 * chunk + 1));
  }
}

int ThreadsOfThisProcess() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                        std::filesystem::directory_iterator()));
}

// Joins TBB's worker threads (they otherwise outlive every arena, idle, until the process
// ends) so that counting threads counts what the loader may have left behind. False when
// TBB still had work running: a loader that did not stop.
bool JoinTbbWorkers() {
  tbb::task_scheduler_handle handle{tbb::attach{}};
  return tbb::finalize(handle, std::nothrow);
}

TEST_CASE("a read failing with EIO surfaces from Next after the good batches, naming the chunk") {
  for (const char* compression : {"none", "zstd"}) {
    CAPTURE(compression);
    FaultyLoaderFile file(compression);
    file.faulty.FailReadsTouching(file.ChunkBegin(6), file.ChunkEnd(6), EIO);
    Loader loader = file.Open(Sequential());
    const Outcome outcome = RunEpoch(loader);
    CheckErrorNamesChunk(outcome, file.path, 6, ErrorCode::kIo);
    CHECK(Contains(outcome.error->what(), "Input/output error"));
    CHECK(file.faulty.faults() >= 1);
    CHECK_THROWS_AS(loader.Next(), Error);  // stays until SetEpoch
  }
}

TEST_CASE("the n-th read failing stops the epoch at the first step needing that chunk") {
  for (int64_t n : {0, 3, 7}) {
    CAPTURE(n);
    FaultyLoaderFile file;
    file.faulty.FailNthRead(n, EIO);
    LoaderOptions options = Sequential();
    options.cache_bytes = 0;  // no prefetch: a chunk is read when a step needs it
    Loader loader = file.Open(options);
    const Outcome outcome = RunEpoch(loader);
    REQUIRE(outcome.error);
    // Two workers assemble steps side by side, so which chunk the n-th read fetched varies;
    // whichever it was, every step before the one that failed was delivered.
    const int64_t chunk = NumberAfter(outcome.error->what(), "chunk ");
    CHECK(chunk <= n);  // chunks are first read in order of use
    CheckErrorNamesChunk(outcome, file.path, chunk, ErrorCode::kIo, Fault::kOnce);
    CHECK(file.faulty.faults() == 1);
  }
}

TEST_CASE("a read failing once while prefetching is retried or reported, never delivered") {
  int reported = 0;
  int retried = 0;
  for (int64_t n = 0; n < 10; ++n) {
    CAPTURE(n);
    FaultyLoaderFile file("zstd");
    file.faulty.FailNthRead(n, EIO);
    Loader loader = file.Open(Sequential());  // the cache prefetches ahead
    const Outcome outcome = RunEpoch(loader);
    CHECK(file.faulty.faults() == 1);
    // The cache drops a failed load: a step already waiting for the chunk gets the error; a
    // step that comes later reads the chunk again (loader.h: errors come out of Next).
    if (outcome.error) {
      ++reported;
      const int64_t chunk = NumberAfter(outcome.error->what(), "chunk ");
      CheckErrorNamesChunk(outcome, file.path, chunk, ErrorCode::kIo, Fault::kOnce);
    } else {
      ++retried;
      CHECK(outcome.good_batches == kSamples / 8);  // each checked pixel for pixel
    }
  }
  MESSAGE("one failed read in 10 epochs: " << reported << " reported, " << retried
                                           << " retried by a later step");
  CHECK(reported + retried == 10);
}

TEST_CASE("every read failing past a point of the file ends the epoch there, and again after") {
  FaultyLoaderFile file("zstd");
  file.faulty.FailReadsTouching(file.ChunkBegin(4), UINT64_MAX, EIO);
  LoaderOptions options = Sequential();
  options.cache_bytes = 0;  // nothing kept: the second epoch reads the good chunks again
  Loader loader = file.Open(options);
  CheckErrorNamesChunk(RunEpoch(loader), file.path, 4, ErrorCode::kIo);
  CheckErrorNamesChunk(RunEpoch(loader), file.path, 4, ErrorCode::kIo);
}

TEST_CASE("a short read (the file truncated after Open) is reported as a truncated chunk") {
  FaultyLoaderFile file;
  file.faulty.EndAt(file.ChunkBegin(3) + 100);  // chunk 3 comes back 100 bytes long
  Loader loader = file.Open(Sequential());
  const Outcome outcome = RunEpoch(loader);
  CheckErrorNamesChunk(outcome, file.path, 3, ErrorCode::kCorrupt);
  CHECK(Contains(outcome.error->what(), "truncated"));
}

TEST_CASE("bytes flipped in transit are caught by the checksum or the codec, never delivered") {
  for (const char* compression : {"none", "zstd", "gzip"}) {
    CAPTURE(compression);
    FaultyLoaderFile file(compression);
    const uint64_t middle = (file.ChunkBegin(5) + file.ChunkEnd(5)) / 2;
    file.faulty.FlipBytes(middle, middle + 1, 0x01);  // one bit
    Loader loader = file.Open(Sequential());
    const Outcome outcome = RunEpoch(loader);
    // Uncompressed, the flipped byte's row fails its own checksum in the second of the
    // chunk's two steps; compressed, the codec fails the chunk in its first step, or the row
    // the damage decompresses into fails its checksum. Either way nothing damaged arrives
    // (RunEpoch checks every delivered pixel).
    CheckErrorNamesChunk(outcome, file.path, 5, ErrorCode::kCorrupt, Fault::kOnce);
    if (std::string(compression) == "none") {
      const int64_t row =
          5 * kChunk + static_cast<int64_t>(middle - file.ChunkBegin(5)) / kShape.bytes();
      CHECK(Contains(outcome.error->what(), "row " + std::to_string(row) + ":"));
      CHECK(outcome.good_batches == 2 * 5 + 1);
    }
    CHECK(file.faulty.faults() >= 1);
  }
}

TEST_CASE("slow reads make the trainer wait, and the epoch still arrives whole and correct") {
  FaultyLoaderFile file;
  file.faulty.DelayEachRead(20ms);
  Loader loader = file.Open(Sequential());
  const Outcome outcome = RunEpoch(loader);
  CHECK_FALSE(outcome.error);
  CHECK(outcome.good_batches == kSamples / 8);
  CHECK(file.faulty.reads() == kSamples / kChunk);  // each chunk read once, none retried
  CHECK(loader.stats().wait_seconds > 0);
}

TEST_CASE("destroying a loader while its reads are slow stops it: no new reads, no threads") {
  REQUIRE(JoinTbbWorkers());
  const int threads_before = ThreadsOfThisProcess();
  int64_t reads_when_destroyed = 0;
  int64_t reads_after = 0;
  {
    FaultyLoaderFile file;
    file.faulty.DelayEachRead(50ms);
    LoaderOptions options = Sequential();
    options.cache_bytes = 0;  // no prefetch: each step reads its chunk when it is assembled
    std::vector<Batch> held;
    {
      Loader loader = file.Open(options);
      loader.SetEpoch(0);
      held.push_back(*loader.Next());  // the trainer waited for a slow read
      CheckSequentialBatch(held.back(), 0);
      reads_when_destroyed = file.faulty.reads();
    }  // mid-epoch: slots filling, reads in flight
    reads_after = file.faulty.reads();
    CheckSequentialBatch(held.back(), 0);  // a held batch outlives its loader
  }
  // Reads already started when the destructor ran finish (one per thread); none start after.
  CHECK(reads_after - reads_when_destroyed <= 2);
  CHECK(reads_after < kSamples / kChunk);  // the epoch was not read to its end
  REQUIRE(JoinTbbWorkers());
  CHECK(ThreadsOfThisProcess() == threads_before);
}

TEST_CASE("after a read error, a loader with batches held and in flight is destroyed cleanly") {
  REQUIRE(JoinTbbWorkers());
  const int threads_before = ThreadsOfThisProcess();
  int64_t faults = 0;
  std::vector<Batch> held;
  for (int64_t failing_chunk : {1, 5, 9}) {
    FaultyLoaderFile file("zstd");
    file.faulty.FailReadsTouching(file.ChunkBegin(failing_chunk), file.ChunkEnd(failing_chunk));
    LoaderOptions options = Sequential();
    options.slots = 4;
    Loader loader = file.Open(options);
    CheckErrorNamesChunk(RunEpoch(loader, &held), file.path, failing_chunk, ErrorCode::kIo);
    faults += file.faulty.faults();
  }
  CHECK(faults >= 3);
  REQUIRE(held.size() == 6);  // the first two batches of each, valid after their loader
  for (size_t i = 0; i < held.size(); ++i) CheckSequentialBatch(held[i], i % 2);
  held.clear();
  REQUIRE(JoinTbbWorkers());
  CHECK(ThreadsOfThisProcess() == threads_before);
}

}  // namespace
}  // namespace h5feed
