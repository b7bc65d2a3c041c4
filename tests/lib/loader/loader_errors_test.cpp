// The Loader's public contract when things go wrong or the trainer misbehaves: options and
// files refused at Open, corrupt chunks reported by Next (or skipped and counted), a trainer
// that holds every slot, loaders destroyed mid-epoch or after an error, or used after a move.

#include <doctest/doctest.h>

#include <algorithm>

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using namespace std::chrono_literals;
using testing::TempFolder;

constexpr ImageShape kShape{9, 7, 3};

struct File {
  explicit File(int64_t samples = 160, const char* compression = "none") {
    testing::WriteH5feedFile(path, samples, kShape, 16, Compression::Parse(compression));
  }
  TempFolder folder;
  std::string path = folder / "train.h5";
};

LoaderOptions Sequential(int64_t batch = 8) {
  LoaderOptions options;
  options.batch_size = batch;
  options.sampler = SamplerOptions::Parse("sequential");
  options.threads = 2;
  options.slots = 3;
  return options;
}

std::string OpenError(const std::string& path, const LoaderOptions& options) {
  try {
    Loader::Open(path, options);
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return error.what();
  }
  FAIL("Open accepted the options");
  return "";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("options out of range are refused at Open, naming the option") {
  File file;
  auto with = [](auto change) {
    LoaderOptions options = Sequential();
    change(options);
    return options;
  };
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.batch_size = 0; })), "batch_size"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.slots = 0; })), "slots"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.threads = -1; })), "threads"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.echo = 0; })), "echo"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.cache_bytes = -1; })), "cache_bytes"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.echo = 4; })), "echo is 4"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.shard = {2, 2, false}; })), "rank"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.sampler.window = 0; })), "window"));
  // A file without masks too: the value is as wrong there.
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.output.mask_fill = 256; })),
                 "output.mask_fill is 256; it must be in [0, 255]"));
  CHECK(Contains(OpenError(file.path, with([](auto& o) { o.output.mask_fill = -1; })),
                 "output.mask_fill is -1"));
}

TEST_CASE("echo beyond slots is refused at Open naming both; held batches are slots beyond") {
  File file;
  LoaderOptions options = Sequential();
  options.held_batches = 1;  // as the Python module: a for loop holds the previous batch
  options.slots = 1;
  options.echo = 2;
  const std::string message = OpenError(file.path, options);
  CHECK(Contains(message, "LoaderOptions.echo is 2 and LoaderOptions.slots is 1"));
  CHECK(Contains(message, "raise LoaderOptions.slots to 2"));
  options.slots = 0;
  options.echo = 1;
  CHECK(Contains(OpenError(file.path, options), "LoaderOptions.slots is 0"));
  // slots = echo, with the held batch's buffer beside them: a loop that keeps the previous
  // batch while it asks for the next reads the whole epoch.
  options.slots = 2;
  options.echo = 2;
  Loader loader = Loader::Open(file.path, options);
  std::optional<Batch> previous;
  int64_t delivered = 0;
  while (std::optional<Batch> batch = loader.Next()) {
    delivered += batch->size();
    previous = std::move(batch);
  }
  CHECK(delivered == 2 * 160);
}

TEST_CASE("a file of fewer rows than a batch gives one short batch per epoch, as DataLoader") {
  File file(40);
  LoaderOptions options = Sequential(256);
  Loader loader = Loader::Open(file.path, options);
  CHECK(loader.batches_per_epoch() == 1);
  for (int64_t epoch : {0, 1}) {
    loader.SetEpoch(epoch);
    std::optional<Batch> batch = loader.Next();
    REQUIRE(batch);
    CHECK(batch->size() == 40);
    CHECK_FALSE(loader.Next());
  }
}

TEST_CASE("with sharding each rank's short batch holds its padded share, ceil(N / ranks)") {
  File file(41);
  for (int rank : {0, 1}) {
    LoaderOptions options = Sequential(256);
    options.shard = {rank, 2, false};  // 21 rows per rank, one of them repeated
    Loader loader = Loader::Open(file.path, options);
    CHECK(loader.samples_per_epoch() == 21);
    std::optional<Batch> batch = loader.Next();
    REQUIRE(batch);
    CHECK(batch->size() == 21);
    CHECK_FALSE(loader.Next());
  }
}

TEST_CASE("drop_last_batch with fewer rows than a batch is refused, saying what to change") {
  File file(40);
  LoaderOptions options = Sequential(256);
  options.drop_last_batch = true;
  std::string message = OpenError(file.path, options);
  CHECK(Contains(message, "has 40 rows, fewer than one batch of 256"));
  CHECK(Contains(message, "LoaderOptions.batch_size to at most 40"));
  CHECK(Contains(message, "LoaderOptions.drop_last_batch"));
  CHECK_FALSE(Contains(message, "ranks"));  // one rank: fewer is no advice
  options.shard = {1, 2, false};            // 20 rows per rank
  message = OpenError(file.path, options);
  CHECK(Contains(message, "rank 1 of 2 reads 20 rows"));
  CHECK(Contains(message, "fewer ranks"));
  options.batch_size = 20;
  CHECK_NOTHROW(Loader::Open(file.path, options));
}

TEST_CASE("errors name the options as the caller's option_names spells them") {
  File file(40);
  LoaderOptions options = Sequential(256);
  options.drop_last_batch = true;
  options.option_names = [](std::string_view path) -> std::string {
    if (path == "batch_size") return "--batch";
    if (path == "drop_last_batch") return "--drop-last";
    return "";
  };
  const std::string message = OpenError(file.path, options);
  CHECK(Contains(message, "Lower --batch to at most 40"));
  CHECK(Contains(message, "leave out --drop-last"));
  CHECK_FALSE(Contains(message, "LoaderOptions"));
  options = Sequential();
  options.cache_bytes = -1;  // a field it has no name for keeps the C++ one
  options.option_names = [](std::string_view) { return std::string(); };
  CHECK(Contains(OpenError(file.path, options), "LoaderOptions.cache_bytes is -1"));
}

TEST_CASE("normalizing images with more channels than mean and std give is refused at Open") {
  TempFolder folder;
  const std::string path = folder / "rgba.h5";
  testing::WriteH5feedFile(path, 20, {4, 4, 4}, 8, Compression::Parse("none"));
  LoaderOptions options = Sequential();
  CHECK_NOTHROW(Loader::Open(path, options));  // uint8 batches of any channel count
  options.normalize = true;
  try {
    Loader::Open(path, options);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kUnsupported);
    CHECK(Contains(error.what(), "4 channels"));
  }
}

TEST_CASE("a missing or truncated file is an error at Open") {
  File file;
  try {
    Loader::Open(file.folder / "absent.h5", Sequential());
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kNotFound);
  }
  std::filesystem::resize_file(file.path, std::filesystem::file_size(file.path) / 2);
  CHECK_THROWS_AS(Loader::Open(file.path, Sequential()), Error);
}

TEST_CASE("a corrupt chunk makes Next throw naming the chunk, after the batches before it") {
  // 16 bytes overwritten in the middle of chunk 5 (rows 80-95: steps 10 and 11 at batch 8).
  // Uncompressed, they are row 88's first bytes: row 88 fails its own checksum as step 11
  // copies it, after step 10 delivered rows 80-87 intact. Compressed, the codec fails on the
  // chunk (step 10) or the row the damage decompresses into fails its checksum.
  for (std::string compression : {"none", "zstd"}) {
    CAPTURE(compression);
    File file(160, compression.c_str());
    testing::CorruptChunk(file.path, 5);
    std::optional<Loader> loader = Loader::Open(file.path, Sequential());
    loader->SetEpoch(0);
    int64_t delivered = 0;
    std::string message;
    try {
      while (std::optional<Batch> batch = loader->Next()) {
        CHECK(batch->step() == delivered);
        for (int64_t i = 0; i < batch->size(); ++i) {
          const std::vector<uint8_t> image = testing::FileImage(batch->indices()[i], kShape);
          CHECK(std::equal(image.begin(), image.end(),
                           batch->images().begin() + static_cast<long>(i * kShape.bytes())));
        }
        ++delivered;
      }
      FAIL("expected an error");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kCorrupt);
      message = error.what();
    }
    CAPTURE(message);
    if (compression == "none") {
      CHECK(delivered == 11);
      CHECK(Contains(message, "row 88"));
    } else {
      CHECK((delivered == 10 || delivered == 11));
    }
    CHECK(Contains(message, "chunk 5"));
    CHECK(Contains(message, file.path));
    CHECK(Contains(message, "/images"));
    CHECK(Contains(message, "step " + std::to_string(delivered)));
    CHECK_THROWS_AS(loader->Next(), Error);  // the error stays until SetEpoch
    CHECK(loader->State().step == delivered);
    loader.reset();  // destroying the loader after an error is clean
  }
}

TEST_CASE("a file without per-row checksums is checked chunk by chunk, as before they existed") {
  File file(160, "none");
  testing::RemoveRowChecksums(file.path);
  testing::CorruptChunk(file.path, 5);
  Loader loader = Loader::Open(file.path, Sequential());
  loader.SetEpoch(0);
  for (int64_t s = 0; s < 10; ++s) REQUIRE(loader.Next());
  try {
    loader.Next();  // step 10 needs chunk 5: its checksum fails when it is loaded
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(), "chunk 5"));
    CHECK(Contains(error.what(), "checksum mismatch"));
    CHECK_FALSE(Contains(error.what(), "row 8"));
  }
}

TEST_CASE("SetEpoch after an error starts over and meets the error again") {
  File file;
  testing::CorruptChunk(file.path, 0);
  Loader loader = Loader::Open(file.path, Sequential());
  const auto read_epoch = [&loader](int epoch) {
    loader.SetEpoch(epoch);
    while (loader.Next()) {}
  };
  CHECK_THROWS_AS(read_epoch(0), Error);
  CHECK_THROWS_AS(read_epoch(1), Error);
}

TEST_CASE("a cache too small for chunks:W is warned about at Open, with the size that fits") {
  File file;  // 10 chunks of 16 images of 189 bytes
  const int64_t chunk_bytes = 16 * kShape.bytes();
  // chunks:4, 3 slots of 8 images, 2 threads: about 4 + 3 + 2 = 9 chunks in use, and 4 more
  // to load the next window ahead: 13, which the file's 10 chunks cap.
  const auto warnings_for = [&](const char* sampler, int64_t cache_chunks, LoaderStats* stats) {
    LoaderOptions options = Sequential(8);
    options.sampler = SamplerOptions::Parse(sampler);
    options.cache_bytes = cache_chunks * chunk_bytes;
    std::vector<std::string> warnings;
    options.on_warning = [&](const std::string& warning) { warnings.push_back(warning); };
    Loader loader = Loader::Open(file.path, options);
    loader.SetEpoch(0);
    int64_t samples = 0;
    while (auto batch = loader.Next()) samples += batch->size();
    CHECK(samples == 160);  // advice only: every sample still arrives
    if (stats) *stats = loader.stats();
    return warnings;
  };

  const std::vector<std::string> ahead = warnings_for("chunks:4", 9, nullptr);
  REQUIRE(ahead.size() == 1);
  CHECK(Contains(ahead[0], "holds 9 chunks of " + file.path));
  CHECK(Contains(ahead[0], "window switch"));
  CHECK(Contains(ahead[0], "cache_bytes of 29.6 KiB avoids it"));  // 10 x 3024 bytes, rounded up

  LoaderStats stats;
  const std::vector<std::string> rereads = warnings_for("chunks:4", 3, &stats);
  REQUIRE(rereads.size() == 1);
  CHECK(Contains(rereads[0], "more than once per epoch"));
  CHECK(stats.chunk_reads > 10);  // what it warned of

  CHECK(warnings_for("chunks:4", 10, nullptr).empty());  // the whole file fits
  CHECK(warnings_for("random", 3, nullptr).empty());     // no window to load ahead
}

TEST_CASE("with skip_corrupt_chunks a corrupt chunk's rows are left out, warned and counted") {
  File file;
  testing::CorruptChunk(file.path, 3);  // rows 48-63
  LoaderOptions options = Sequential(10);
  options.skip_corrupt_chunks = true;
  std::vector<std::string> warnings;
  options.on_warning = [&](const std::string& message) { warnings.push_back(message); };
  Loader loader = Loader::Open(file.path, options);
  std::set<int64_t> rows[2];  // delivered, per epoch
  for (int epoch = 0; epoch < 2; ++epoch) {
    loader.SetEpoch(epoch);
    while (auto batch = loader.Next()) {
      CHECK(batch->size() > 0);
      for (size_t i = 0; i < static_cast<size_t>(batch->size()); ++i) {
        const int64_t row = batch->indices()[i];
        rows[epoch].insert(row);
        const std::vector<uint8_t> image = testing::FileImage(row, kShape);
        CHECK(std::equal(image.begin(), image.end(),
                         batch->images().begin() + static_cast<long>(i * image.size())));
      }
    }
  }
  // Row 56 is the damaged one; every delivered pixel was checked above. The first step to
  // gather from chunk 3 checks all its rows, so none of its 16 is delivered in either epoch,
  // whichever of steps 4, 5 and 6 (rows 40-49, 50-59, 60-69, gathered in parallel) got there
  // first; epoch 1 skips them without reading the chunk again.
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int64_t row = 0; row < 160; ++row) {
      CAPTURE(epoch);
      CAPTURE(row);
      CHECK(rows[epoch].count(row) == (row >= 48 && row < 64 ? 0 : 1));
    }
  }
  REQUIRE(warnings.size() == 1);
  CHECK(Contains(warnings[0], "chunk 3"));
  CHECK(Contains(warnings[0], "row 56"));
  CHECK(loader.stats().corrupt_chunks_skipped == 1);
  CHECK(loader.stats().samples_skipped == 16 + 16);
}

TEST_CASE("a trainer holding every slot stalls the loader, and releasing one resumes it") {
  File file;
  LoaderOptions options = Sequential();
  options.slots = 2;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  std::vector<Batch> held;
  held.push_back(*loader.Next());
  held.push_back(*loader.Next());
  auto third = std::async(std::launch::async, [&] { return loader.Next(); });
  CHECK(third.wait_for(300ms) == std::future_status::timeout);
  held.erase(held.begin());
  REQUIRE(third.wait_for(20s) == std::future_status::ready);
  std::optional<Batch> batch = third.get();
  REQUIRE(batch);
  CHECK(batch->step() == 2);
  CHECK(batch->indices()[0] == 16);
}

// A trainer that keeps every batch (a vector of the epoch's) leaves the loader no slot to fill:
// only another thread of its own could end the wait. Next waits that long (5 s) and then says
// so, instead of hanging; with echo a step needs a slot for each copy.
TEST_CASE(
    "a trainer holding every slot for 5 s gets an error naming the batches held, not a hang") {
  File file;
  for (const int echo : {1, 2}) {
    CAPTURE(echo);
    LoaderOptions options = Sequential();
    options.slots = 2;
    options.echo = echo;
    Loader loader = Loader::Open(file.path, options);
    loader.SetEpoch(0);
    // Declared first, destroyed last: without the limit a failed check leaves the held
    // batches to be released before the future's destructor waits for Next.
    std::future<std::optional<Batch>> third;
    std::vector<Batch> held;
    held.push_back(*loader.Next());
    held.push_back(*loader.Next());
    const auto asked = std::chrono::steady_clock::now();
    third = std::async(std::launch::async, [&] { return loader.Next(); });
    REQUIRE(third.wait_for(30s) == std::future_status::ready);
    const auto waited = std::chrono::steady_clock::now() - asked;
    CHECK(waited >= 4500ms);
    try {
      third.get();
      FAIL("Next delivered a batch with every slot held");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kInvalidArgument);
      CHECK(Contains(error.what(), "holds 2 batches delivered earlier"));
      CHECK(Contains(error.what(), "of the loader's 2 slots"));
      CHECK(Contains(error.what(), "Release the batches"));
      CHECK(Contains(error.what(), "LoaderOptions::slots"));
    }
    // Released, the loader goes on where it was.
    held.clear();
    std::optional<Batch> batch = loader.Next();
    REQUIRE(batch);
    CHECK(batch->step() == 2);
  }
}

TEST_CASE("a negative epoch is refused by SetEpoch and in a state given to Restore") {
  File file;
  Loader loader = Loader::Open(file.path, Sequential());
  try {
    loader.SetEpoch(-1);
    FAIL("SetEpoch(-1) was accepted");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(Contains(error.what(), "Loader::SetEpoch(-1): an epoch is a count from 0"));
  }
  LoaderState state = loader.State();
  state.epoch = -3;
  try {
    loader.Restore(state);
    FAIL("Restore accepted epoch -3");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(Contains(error.what(), "the state's epoch is -3"));
  }
  // Still usable: epoch 0 reads.
  loader.SetEpoch(0);
  CHECK(loader.Next());
}

TEST_CASE("destroying a loader mid-epoch with batches in flight is clean; held batches stay") {
  File file;
  std::vector<Batch> held;
  for (int round = 0; round < 20; ++round) {
    LoaderOptions options = Sequential();
    options.sampler = SamplerOptions::Parse("random");
    options.slots = 4;
    Loader loader = Loader::Open(file.path, options);
    loader.SetEpoch(round);
    for (int i = 0; i < round % 4; ++i) held.push_back(*loader.Next());
    if (round % 3 == 0) std::this_thread::sleep_for(5ms);  // let the slots fill up
  }
  for (const Batch& batch : held) {  // outlived their loaders
    for (size_t i = 0; i < static_cast<size_t>(batch.size()); ++i) {
      const std::vector<uint8_t> image = testing::FileImage(batch.indices()[i], kShape);
      CHECK(std::equal(image.begin(), image.end(),
                       batch.images().begin() + static_cast<long>(i * image.size())));
    }
  }
}

TEST_CASE("a moved-from loader or batch refuses every call with an error; assigned to, it reads") {
  File file;
  Loader loader = Loader::Open(file.path, Sequential());
  Loader moved_to = std::move(loader);
  const auto refuses = [](const auto& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code() == ErrorCode::kInvalidArgument &&
             std::string_view(e.what()).find("moved from") != std::string_view::npos;
    }
    return false;
  };
  CHECK(refuses([&] { loader.Next(); }));
  CHECK(refuses([&] { loader.SetEpoch(1); }));
  CHECK(refuses([&] { loader.State(); }));
  CHECK(refuses([&] { loader.Restore(moved_to.State()); }));
  CHECK(refuses([&] { loader.WaitReady(1ms); }));
  CHECK(refuses([&] { loader.SetOutputSize(4, 4); }));
  CHECK(refuses([&] { loader.batches_per_epoch(); }));
  CHECK(refuses([&] { loader.samples_per_epoch(); }));
  CHECK(refuses([&] { loader.dataset(); }));
  CHECK(refuses([&] { loader.fields(); }));
  CHECK(refuses([&] { loader.streamed_fields(); }));
  CHECK(refuses([&] { loader.stats(); }));
  // A Batch alike: moved into a vector, the one left behind refuses instead of crashing.
  std::optional<Batch> first = moved_to.Next();
  REQUIRE(first);
  std::vector<Batch> kept;
  kept.push_back(std::move(*first));
  CHECK(refuses([&] { first->size(); }));
  CHECK(refuses([&] { first->labels(); }));
  CHECK(refuses([&] { first->image_tensor(); }));
  CHECK(refuses([&] { first->field_tensor(0); }));
  CHECK(kept[0].size() == 8);
  CHECK(kept[0].indices()[0] == 0);
  loader = Loader::Open(file.path, Sequential());
  std::optional<Batch> batch = loader.Next();
  REQUIRE(batch);
  CHECK(batch->indices()[0] == 0);
}

TEST_CASE("one thread, one slot and no cache still deliver a correct epoch") {
  File file(100, "zstd");
  LoaderOptions options = Sequential(7);
  options.sampler = SamplerOptions::Parse("random");
  options.threads = 1;
  options.slots = 1;
  options.cache_bytes = 0;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  std::set<int64_t> rows;
  while (auto batch = loader.Next()) {
    for (size_t i = 0; i < static_cast<size_t>(batch->size()); ++i) {
      const std::vector<uint8_t> image = testing::FileImage(batch->indices()[i], kShape);
      CHECK(std::equal(image.begin(), image.end(),
                       batch->images().begin() + static_cast<long>(i * image.size())));
      rows.insert(batch->indices()[i]);
    }
  }
  CHECK(rows.size() == 100);
}

}  // namespace
}  // namespace h5feed
