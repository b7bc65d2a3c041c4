#include "index/file_verification.h"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "index_test_files.h"
#include "support/caught_error.h"

namespace h5feed::index {
namespace {

using testing::Contains;
using testing::TempFolder;

constexpr ImageShape kShape{6, 5, 3};

bool Mentions(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines) {
    if (Contains(line, part)) return true;
  }
  return false;
}

// The stored table of `path`, as the index reads it.
std::vector<ChunkLocation> Table(const std::string& path) {
  return OpenDatasetIndex(path, IndexOptions{}).chunks;
}

TEST_CASE("a sound h5feed file verifies with every check listed and nothing left out") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  std::atomic<int64_t> calls{0}, last{0};
  VerifyOptions options;
  options.threads = 2;
  options.on_progress = [&](int64_t done, int64_t total) {
    ++calls;
    last = done;
    CHECK(total == 7);
  };
  VerificationReport report = VerifyFile(path, options);
  CHECK(report.ok());
  CHECK(report.is_h5feed);
  CHECK(report.chunks == 7);
  CHECK(report.chunks_checked == 7);
  CHECK(calls == 7);
  CHECK(last == 7);
  CHECK(report.not_checked.empty());
  CHECK(Mentions(report.checked, "all 7 rows against HDF5"));
  CHECK(Mentions(report.checked, "XXH3-64"));
  CHECK(Mentions(report.checked, "every image against its own"));
  CHECK(report.problems.empty());
  CHECK(report.warnings.empty());
}

TEST_CASE("every damaged chunk is listed with its rows, not only the first") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  const std::vector<ChunkLocation> table = Table(path);
  testing::FlipByteInFile(path, table[1].address + 17);
  testing::FlipByteInFile(path, table[6].address);  // the last chunk: rows 48-49 only
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(report.bad_chunks[0].first_row == 8);
  CHECK(report.bad_chunks[0].last_row == 15);
  CHECK(Contains(report.bad_chunks[0].problem, "checksum mismatch"));
  CHECK(report.bad_chunks[1].chunk == 6);
  CHECK(report.bad_chunks[1].first_row == 48);
  CHECK(report.bad_chunks[1].last_row == 49);
  CHECK(report.problems.empty());
  CHECK(report.indexed);
}

TEST_CASE("a stale table row and labels outside the classes are each reported") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  // Chunk 4's row points one byte late; rows 3 and 9 name classes that do not exist.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "t = f[\"chunk_index\"][()]\n"
                             "t[\"address\"][4] += np.uint64(1)\n"
                             "f[\"chunk_index\"][...] = t\n"
                             "f[\"labels\"][3] = 3\n"
                             "f[\"labels\"][9] = -1\n"
                             "f.close()\n");
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  REQUIRE(report.bad_chunks.size() == 1);
  CHECK(report.bad_chunks[0].chunk == 4);
  CHECK(Contains(report.bad_chunks[0].problem, "does not match HDF5's"));
  CHECK(Mentions(report.problems, "label 3 of row 3 is outside the 3 classes"));
  CHECK(Mentions(report.problems, "label -1 of row 9"));
}

TEST_CASE("images whose stored checksums differ are listed by row; chunks that pass still fail") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  // The pixels are intact (every chunk checksum passes); /row_checksums is damaged for rows
  // 10, 12 and 41.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "for row in (10, 12, 41):\n"
                             "    f[\"row_checksums\"][row] ^= np.uint64(1)\n"
                             "f.close()\n");
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(Contains(report.bad_chunks[0].problem, "row 10: checksum mismatch (stored 0x"));
  CHECK(Contains(report.bad_chunks[0].problem, "(and 1 more rows of the chunk)"));
  CHECK(report.bad_chunks[1].chunk == 5);
  CHECK(Contains(report.bad_chunks[1].problem, "row 41: checksum mismatch"));
  CHECK_FALSE(Contains(report.bad_chunks[1].problem, "more rows"));

  // Without /row_checksums (a file from before they existed) the chunks alone are checked.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "del f[\"row_checksums\"]\n"
                             "f.close()\n");
  report = VerifyFile(path, VerifyOptions{});
  CHECK(report.ok());
  CHECK_FALSE(Mentions(report.checked, "every image against its own"));
}

TEST_CASE("an h5py file is decoded, and the report says it has no checksums or table") {
  VerificationReport report = VerifyFile(testing::ForeignFile("nchw_gzip"), VerifyOptions{});
  CHECK(report.ok());
  CHECK_FALSE(report.is_h5feed);
  CHECK(report.chunks_checked == report.chunks);
  CHECK(Mentions(report.not_checked, "no checksums"));
  CHECK(Mentions(report.not_checked, "not written by h5feed"));
}

TEST_CASE("a grayscale (N, H, W) h5py file is verified as the loader reads it") {
  const VerificationReport report = VerifyFile(testing::ForeignFile("grayscale"), VerifyOptions{});
  CHECK(report.ok());
  CHECK(report.samples == 25);
  CHECK(report.chunks_checked == 7);
}

TEST_CASE("a truncated file is damaged; a missing file cannot be judged") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK_FALSE(report.indexed);
  CHECK(Mentions(report.problems, "truncated"));
  CHECK(testing::CodeOf([&] { VerifyFile(folder / "absent.h5", VerifyOptions{}); }) ==
        ErrorCode::kNotFound);
}

}  // namespace
}  // namespace h5feed::index
