#include "bench/sweep_plan.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "support/caught_error.h"

namespace h5feed::bench {
namespace {

using testing::CodeOf;

TEST_CASE("lists parse in order, without duplicates, in canonical names") {
  const SweepGrid grid =
      ParseGrid("16,64,16", "none,zstd:1,zstd", "64,256", "random,chunks:4,quasi");
  CHECK(grid.chunks == std::vector<int64_t>{16, 64});
  REQUIRE(grid.compressions.size() == 3);
  CHECK(grid.compressions[2].ToString() == "zstd:3");
  CHECK(grid.cache_mb == std::vector<int64_t>{64, 256});
  REQUIRE(grid.samplers.size() == 3);
  CHECK(grid.samplers[2].ToString() == "quasi:8");
}

TEST_CASE("a bad item is an InvalidArgument error naming the option and the item") {
  std::string message;
  CHECK(CodeOf([] { ParseGrid("16,x", "none", "64", "random"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("--chunks: 'x'") != std::string::npos);
  CHECK(CodeOf([] { ParseGrid("0", "none", "64", "random"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("at least 1") != std::string::npos);
  CHECK(CodeOf([] { ParseGrid("16", "lz4", "64", "random"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("--compression: 'lz4'") != std::string::npos);
  CHECK(CodeOf([] { ParseGrid("16", "none", "64,", "random"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("--cache-mb") != std::string::npos);
  CHECK(CodeOf([] { ParseGrid("16", "none", "64", "shuffle"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("--sampler: 'shuffle'") != std::string::npos);
  CHECK(ParseNumberList("0", "--cache-mb", 0) == std::vector<int64_t>{0});
}

// The variants of a file of one image size: each chunk size x each compression.
std::vector<FileVariant> Variants(const SweepGrid& grid) {
  std::vector<FileVariant> files;
  for (int64_t chunk : grid.chunks) {
    for (const Compression& compression : grid.compressions) files.emplace_back(chunk, compression);
  }
  return files;
}

TEST_CASE("the plan runs every combination grouped by file, adding random and the defaults") {
  const SweepGrid grid = ParseGrid("16,64", "none,zstd:3", "64,256", "chunks:4");
  const SweepPlan plan = PlanSweep(Variants(grid), grid, DefaultRun(36));
  // 2 chunks x 2 compressions, plus the defaults' own file (chunk 36, zstd:3).
  REQUIRE(plan.files.size() == 5);
  CHECK(plan.files[4] == FileVariant{36, Compression::Parse("zstd:3")});
  // 4 files x 2 caches x (chunks:4 + random), plus the defaults run.
  REQUIRE(plan.runs.size() == 17);
  CHECK(plan.runs[1].sampler.ToString() == "random");
  // Grouped: a file's runs are consecutive, in the order the files are made.
  size_t previous = 0;
  for (const SweepRun& run : plan.runs) {
    const auto at = std::find(plan.files.begin(), plan.files.end(), run.file);
    REQUIRE(at != plan.files.end());
    const auto index = static_cast<size_t>(at - plan.files.begin());
    CHECK(index >= previous);
    previous = index;
  }
  CHECK_FALSE(plan.runs.back().in_grid);
  CHECK(plan.runs.back().is_default);
  CHECK(plan.runs.back().cache_mb == 512);
  CHECK(plan.runs.back().sampler.ToString() == "chunks:8");
}

TEST_CASE("defaults already in the grid are marked, not run twice") {
  const SweepGrid grid = ParseGrid("36", "zstd:3", "512", "chunks:8,random");
  const SweepPlan plan = PlanSweep(Variants(grid), grid, DefaultRun(36));
  REQUIRE(plan.runs.size() == 2);
  CHECK(plan.runs[0].is_default);
  CHECK(plan.runs[0].in_grid);
  CHECK_FALSE(plan.runs[1].is_default);
}

TEST_CASE("an added defaults run sits beside its file variant when the grid has it") {
  const SweepGrid grid = ParseGrid("36,64", "zstd:3", "256", "random");
  const SweepPlan plan = PlanSweep(Variants(grid), grid, DefaultRun(36));
  REQUIRE(plan.files.size() == 2);
  REQUIRE(plan.runs.size() == 3);
  CHECK(plan.runs[1].is_default);
  CHECK(plan.runs[1].file == plan.files[0]);
}

TEST_CASE("encodings and chunk bytes parse in canonical names, and bad ones name the option") {
  const std::vector<StoredEncoding> encodings = ParseEncodings("raw,jpeg,jpeg:90,smart:75");
  REQUIRE(encodings.size() == 3);
  CHECK(encodings[1].ToString() == "jpeg:90");
  CHECK(ParseChunkBytes("64K,1M,1024K") == std::vector<int64_t>{64 << 10, 1 << 20});
  std::string message;
  CHECK(CodeOf([] { ParseEncodings("raw,png"); }, &message) == ErrorCode::kInvalidArgument);
  CHECK(message.find("--encodings: 'png'") != std::string::npos);
  CHECK(CodeOf([] { ParseChunkBytes("0"); }, &message) == ErrorCode::kInvalidArgument);
  CHECK(message.find("--chunk-bytes: '0'") != std::string::npos);
}

TEST_CASE("a variant is named as its rows name it") {
  CHECK(FileVariant{64, Compression::Parse("zstd:3")}.Name() == "chunk 64, zstd:3");
  CHECK(FileVariant{StoredEncoding::Parse("jpeg:90"), 4 << 20, Compression::Parse("none")}.Name() ==
        "jpeg:90, chunks of 4.0 MiB, none");
}

}  // namespace
}  // namespace h5feed::bench
