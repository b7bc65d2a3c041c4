// Loader::Open on files that crash or hang HDF5 1.10.8 itself while it parses their structure
// (docs/fuzzing.md, "Findings in HDF5 itself"): the open probe (lib/probe/open_probe.h) meets
// the crash or the hang in its own process, and Open throws Error(kCorrupt) naming the file
// and what to do, while this process goes on. Sound files open as before, ordinary errors
// read as they do without the probe, and a missing probe program costs a warning, not the
// open.

#include <doctest/doctest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::CaughtError;

// Inputs HDF5 crashes on (SIGSEGV; ASan reports in a sanitizer build), and the one it spins on.
const fs::path kCrashes = fs::path(H5FEED_FUZZ_DIR) / "hdf5_findings" / "open_file";
const fs::path kHang =
    fs::path(H5FEED_FUZZ_DIR) / "regressions" / "open_file" / "hdf5_hang_global_heap_object0_size0";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

LoaderOptions Options(std::vector<std::string>* warnings = nullptr) {
  LoaderOptions options;
  options.batch_size = 4;
  options.threads = 2;
  options.sampler = SamplerOptions::Parse("sequential");
  if (warnings) options.on_warning = [warnings](const std::string& w) { warnings->push_back(w); };
  return options;
}

TEST_CASE("every file that crashes HDF5 at open is refused as corrupt, and this process goes on") {
  int inputs = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kCrashes)) {
    const std::string path = entry.path().string();
    CAPTURE(path);
    const Error error = CaughtError([&] { Loader::Open(path, Options()); });
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(), path));
    ++inputs;
  }
  CHECK(inputs >= 3);
}

TEST_CASE("a crash inside HDF5 names the file, says what happened and what to do") {
  const std::string path = (kCrashes / "segv_H5VM_memcpyvv_contiguous_read").string();
  const Error error = CaughtError([&] { Loader::Open(path, Options()); });
  CHECK(error.code() == ErrorCode::kCorrupt);
  const std::string message = error.what();
  // SIGSEGV in an ordinary build; a sanitizer's report ends the probe with SIGABRT (ASan's
  // abort_on_error, as scripts/sanitize.sh sets it) or with an exit code (TSan's 66).
  CHECK((Contains(message, "HDF5 crashed (SIGSEGV") || Contains(message, "HDF5 crashed (SIGABRT") ||
         Contains(message, "HDF5 ended abnormally (exit code")));
  CHECK(Contains(message, "while opening the file's structure"));
  CHECK(Contains(message, "h5feed verify " + path));
  CHECK(Contains(message, "restore or re-convert it"));
}

TEST_CASE("a file HDF5 spins on is refused as corrupt after the stall limit") {
  LoaderOptions options = Options();
  options.open_probe_stall_seconds = 2;
  const auto started = std::chrono::steady_clock::now();
  const Error error = CaughtError([&] { Loader::Open(kHang.string(), options); });
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(error.code() == ErrorCode::kCorrupt);
  CHECK(Contains(error.what(), kHang.string()));
  CHECK(Contains(error.what(), "made no progress for 2 s"));
  CHECK(took >= 2s);
  CHECK(took < 30s);
}

TEST_CASE("a sound file opens with the probe on, without a warning, from several threads") {
  testing::TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 40, ImageShape{5, 4, 3}, 8, Compression::Parse("zstd:1"));
  std::vector<std::string> warnings;
  Loader loader = Loader::Open(path, Options(&warnings));
  CHECK(loader.dataset().samples == 40);
  int64_t rows = 0;
  while (auto batch = loader.Next()) rows += batch->size();
  CHECK(rows == 40);
  CHECK(warnings.empty());

  std::vector<std::thread> threads;
  std::vector<int64_t> samples(4, 0);
  for (size_t i = 0; i < samples.size(); ++i) {
    threads.emplace_back([&, i] { samples[i] = Loader::Open(path, Options()).dataset().samples; });
  }
  for (std::thread& thread : threads) thread.join();
  for (int64_t s : samples) CHECK(s == 40);
}

TEST_CASE("an ordinary error reads the same with the probe on as with it off") {
  testing::TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 16, ImageShape{5, 4, 3}, 8, Compression::Parse("none"));
  for (const std::string& missing : {path + ".nothing", path}) {
    LoaderOptions with = Options(), without = Options();
    with.images_dataset = without.images_dataset = "no_such_images";
    without.open_probe = false;
    const Error probed = CaughtError([&] { Loader::Open(missing, with); });
    const Error direct = CaughtError([&] { Loader::Open(missing, without); });
    CHECK(probed.code() == direct.code());
    CHECK(std::string(probed.what()) == direct.what());
  }
}

TEST_CASE("without its program the probe is skipped with one warning, and the file opens") {
  testing::TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 16, ImageShape{5, 4, 3}, 8, Compression::Parse("none"));
  setenv("H5FEED_OPEN_PROBE", "/nonexistent/h5feed-open-probe", 1);
  std::vector<std::string> warnings;
  const int64_t samples = Loader::Open(path, Options(&warnings)).dataset().samples;
  unsetenv("H5FEED_OPEN_PROBE");
  CHECK(samples == 16);
  REQUIRE(warnings.size() == 1);
  CHECK(Contains(warnings[0], "open probe (h5feed-open-probe) was not found"));
  CHECK(Contains(warnings[0], "/nonexistent/h5feed-open-probe"));
  CHECK(Contains(warnings[0], "opened " + path + " in this process"));
}

TEST_CASE("a stall limit below one second is refused at Open") {
  LoaderOptions options = Options();
  options.open_probe_stall_seconds = 0;
  const Error error = CaughtError([&] { Loader::Open(kHang.string(), options); });
  CHECK(error.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(error.what(), "open_probe_stall_seconds"));
}

}  // namespace
}  // namespace h5feed
