#include "index/chunk_reader.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index/dataset_index.h"
#include "index_test_files.h"
#include "support/faulty_file.h"

namespace h5feed::index {
namespace {

using testing::CaughtError;
using testing::Contains;
using testing::FaultyFile;
using testing::ForeignFile;
using testing::TempFolder;

const ImageShape kShape{6, 5, 3};  // 90 bytes per image
constexpr int64_t kImages = 50;
constexpr int64_t kPerChunk = 8;  // 7 chunks, the last holding 2 images

// An index, the file it reads and a reader, kept together.
struct Opened {
  explicit Opened(const std::string& path, IndexOptions index_options = {},
                  ChunkReaderOptions reader_options = {})
      : index(OpenDatasetIndex(path, index_options)),
        file(io::OpenPosixFile(path)),
        reader(index, *file, reader_options) {}
  DatasetIndex index;
  std::unique_ptr<io::RandomAccessFile> file;
  ChunkReader reader;
};

// Reads every chunk; returns the rows of the dataset (padding dropped), NHWC.
std::vector<uint8_t> ReadAllRows(const DatasetIndex& index, const ChunkReader& reader) {
  std::vector<uint8_t> rows;
  std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
  for (int64_t c = 0; c < index.chunk_count(); ++c) {
    reader.Read(c, chunk);
    const size_t bytes = static_cast<size_t>(index.samples_in_chunk(c) * index.sample_bytes());
    rows.insert(rows.end(), chunk.begin(), chunk.begin() + static_cast<ptrdiff_t>(bytes));
  }
  return rows;
}

std::string H5feedFile(const TempFolder& folder, const std::string& compression,
                       std::vector<uint8_t>* pixels = nullptr) {
  const std::string path = folder / ("train-" + compression + ".h5");
  std::vector<uint8_t> written =
      testing::WriteH5feedFile(path, Compression::Parse(compression), kImages, kPerChunk, kShape);
  if (pixels != nullptr) *pixels = std::move(written);
  return path;
}

TEST_CASE("every chunk of an h5feed file decodes to exactly the writer's input") {
  TempFolder folder;
  for (const char* compression : {"zstd:3", "gzip:6", "none"}) {
    const std::string compression_name = compression;
    CAPTURE(compression_name);
    std::vector<uint8_t> pixels;
    Opened opened(H5feedFile(folder, compression, &pixels));
    const ChunkReader& reader = opened.reader;
    CHECK(reader.chunk_bytes() == kPerChunk * 90);
    std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()), 0xAA);
    for (int64_t c = 0; c < 7; ++c) {
      CAPTURE(c);
      ChunkReadStats stats = reader.Read(c, chunk);
      CHECK(stats.bytes_read == opened.index.chunks[c].stored_bytes);
      CHECK(stats.bytes_decoded == uint64_t(kPerChunk * 90));
      const int64_t rows = opened.index.samples_in_chunk(c);
      CHECK(std::equal(chunk.begin(), chunk.begin() + rows * 90,
                       pixels.begin() + c * kPerChunk * 90));
      // The last chunk's padding is decoded too: zeros, as written.
      CHECK(std::all_of(chunk.begin() + rows * 90, chunk.end(), [](uint8_t b) { return b == 0; }));
    }
  }
}

TEST_CASE("every row of an h5py-written file equals h5py's own read, in NHWC order") {
  const char* cases[] = {
      "nhwc_gzip_shuffle", "nchw_gzip",           "nchw_fletcher32",  "nhwc_fletcher32_only",
      "nhwc_zstd",         "nchw_zstd",           "nhwc_chunked_raw", "latest_format",
      "grayscale",         "unwritten_chunks",    "nhwc_contiguous",  "nchw_contiguous",
      "partial_chunks",    "partial_chunks_nchw", "compact",          "declared_nchw"};
  for (const char* name : cases) {
    const std::string case_name = name;
    CAPTURE(case_name);
    const std::string path = ForeignFile(name);
    Opened opened(path);
    const std::string read_path = ToString(opened.index.read_path);
    CAPTURE(read_path);
    std::vector<uint8_t> expected = testing::ReadBytes(path + ".nhwc");
    std::vector<uint8_t> rows = ReadAllRows(opened.index, opened.reader);
    REQUIRE(rows.size() == expected.size());
    CHECK(rows == expected);
    std::vector<uint8_t> label_bytes = testing::ReadBytes(path + ".labels");
    std::vector<int64_t> labels(label_bytes.size() / 8);
    std::memcpy(labels.data(), label_bytes.data(), label_bytes.size());
    CHECK(opened.index.labels == labels);
  }
}

TEST_CASE("chunks never written read as the dataset's fill value") {
  Opened opened(ForeignFile("unwritten_chunks"));
  CHECK(opened.index.fill_value == 7);
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  opened.reader.Read(1, chunk);  // rows 8-15: never written
  CHECK(std::all_of(chunk.begin(), chunk.end(), [](uint8_t b) { return b == 7; }));
  ChunkReadStats stats = opened.reader.Read(3, chunk);  // rows 24-29
  CHECK(stats.bytes_read == 0);
}

TEST_CASE("a flipped byte inside a stored chunk is a checksum error naming the chunk and rows") {
  TempFolder folder;
  const std::string path = H5feedFile(folder, "none");
  const DatasetIndex clean = OpenDatasetIndex(path, {});
  testing::FlipByteInFile(path, clean.chunks[3].address + 100, 0x01);
  Opened opened(path);
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  opened.reader.Read(2, chunk);  // its neighbours are intact
  opened.reader.Read(4, chunk);
  Error e = CaughtError([&] { opened.reader.Read(3, chunk); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  const std::string message = e.what();
  CHECK(Contains(message, "chunk 3 of /images in " + path +
                              " (rows 24-31): checksum mismatch "
                              "(stored 0x"));
  CHECK(Contains(message, ", computed 0x"));
  CHECK(Contains(message, "): the file is damaged; h5feed verify lists every bad chunk"));

  // The option that turns checking off lets the damage through: it exists for speed tests.
  Opened unchecked(path, {}, ChunkReaderOptions{false});
  unchecked.reader.Read(3, chunk);
}

TEST_CASE(
    "with rows checked by the caller, VerifyRow names the damaged row and Read skips the "
    "chunk checksum") {
  TempFolder folder;
  std::vector<uint8_t> pixels;
  const std::string path = H5feedFile(folder, "none", &pixels);
  const DatasetIndex clean = OpenDatasetIndex(path, {});
  REQUIRE(clean.row_checksums.size() == static_cast<size_t>(kImages));
  testing::FlipByteInFile(path, clean.chunks[3].address + 100, 0x01);  // row 3 * 8 + 100 / 90

  Opened opened(path, {}, ChunkReaderOptions{.rows_checked_by_caller = true});
  CHECK(opened.reader.ChecksRows());
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  opened.reader.Read(3, chunk);  // no chunk checksum: the caller checks what it uses
  const auto row = [&](int64_t r) {
    return std::span<const uint8_t>(chunk).subspan(static_cast<size_t>((r - 24) * 90), 90);
  };
  opened.reader.VerifyRow(24, row(24));  // the chunk's other rows are intact
  opened.reader.VerifyRow(26, row(26));
  Error e = CaughtError([&] { opened.reader.VerifyRow(25, row(25)); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 3 of /images in " + path +
                               " (rows 24-31): row 25: checksum "
                               "mismatch (stored 0x"));
  CHECK(Contains(e.what(), "h5feed verify lists every bad chunk"));
  // The undamaged bytes of row 25 pass: the stored checksum is that of the written row.
  opened.reader.VerifyRow(25, std::span<const uint8_t>(pixels).subspan(25 * 90, 90));

  // Without the caller's checks, or with checking off, the reader is what it was.
  CHECK_FALSE(Opened(path).reader.ChecksRows());
  CHECK_FALSE(Opened(path, {},
                     ChunkReaderOptions{.verify_checksums = false, .rows_checked_by_caller = true})
                  .reader.ChecksRows());
  CHECK(CaughtError([&] { Opened(path).reader.Read(3, chunk); }).code() == ErrorCode::kCorrupt);
}

TEST_CASE("a damaged zstd frame or zlib stream is a decompression error naming the chunk") {
  TempFolder folder;
  for (const char* compression : {"zstd:3", "gzip:6"}) {
    const std::string compression_name = compression;
    CAPTURE(compression_name);
    const std::string path = H5feedFile(folder, compression);
    const DatasetIndex clean = OpenDatasetIndex(path, {});
    testing::FlipByteInFile(path, clean.chunks[6].address);  // the frame's or stream's header
    Opened opened(path);
    std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
    Error e = CaughtError([&] { opened.reader.Read(6, chunk); });
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(Contains(e.what(), "chunk 6 of /images in " + path + " (rows 48-49): "));
    CHECK(Contains(e.what(), compression[0] == 'z' ? "zstd" : "zlib"));
    CHECK(Contains(e.what(), "the file is damaged"));
  }
}

TEST_CASE("a damaged chunk of an h5py file with fletcher32 is reported with the chunk") {
  TempFolder folder;
  const std::string path = testing::CopyTo(ForeignFile("nchw_fletcher32"), folder / "f.h5");
  {
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
    hsize_t offset[4] = {10, 0, 0, 0};  // chunk 2
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(images.get(), offset, &mask, &address, &size) >= 0);
    images.reset();
    file.reset();
    testing::FlipByteInFile(path, address + size - 1);  // inside the checksum itself
  }
  Opened opened(path);
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  opened.reader.Read(1, chunk);
  Error e = CaughtError([&] { opened.reader.Read(2, chunk); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 2 of /images in " + path +
                               " (rows 10-14): fletcher32 "
                               "checksum mismatch"));
}

TEST_CASE("a stale chunk table that was not verified at open is caught at the first read") {
  TempFolder folder;
  const std::string path = H5feedFile(folder, "zstd:3");
  testing::RunPythonWithH5py(
      "f = h5py.File(\"" + path +
      "\", \"a\")\n"
      "t = f[\"chunk_index\"][:]; t[\"address\"][5] = t[\"address\"][4]\n"
      "t[\"stored_bytes\"][5] = t[\"stored_bytes\"][4]; f[\"chunk_index\"][:] = t");
  IndexOptions unchecked;
  unchecked.verify_table_entries = 0;
  Opened opened(path, unchecked);
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  Error e = CaughtError([&] { opened.reader.Read(5, chunk); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 5 of /images"));
  CHECK(Contains(e.what(), "checksum mismatch"));
}

TEST_CASE("a file truncated after it was indexed is a truncated-file error naming the chunk") {
  TempFolder folder;
  const std::string path = H5feedFile(folder, "none");
  const DatasetIndex index = OpenDatasetIndex(path, {});
  std::filesystem::resize_file(path, index.chunks[4].address + 10);
  auto file = io::OpenPosixFile(path);
  ChunkReader reader(index, *file, {});
  std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
  reader.Read(3, chunk);
  Error e = CaughtError([&] { reader.Read(4, chunk); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 4 of /images in " + path + " (rows 32-39): "));
  CHECK(Contains(e.what(), "file ends at byte " + std::to_string(index.chunks[4].address + 10) +
                               ", expected 710 more"));
  CHECK(Contains(e.what(), "truncated?"));
}

TEST_CASE("files truncated anywhere are refused at open or at read, never read wrongly") {
  TempFolder folder;
  std::vector<uint8_t> pixels;
  const std::string h5feed = H5feedFile(folder, "zstd:3", &pixels);
  struct Source {
    std::string path;
    std::vector<uint8_t> rows;
  };
  const Source sources[] = {
      {h5feed, pixels},
      {ForeignFile("nhwc_contiguous"),
       testing::ReadBytes(ForeignFile("nhwc_contiguous") + ".nhwc")},
      {ForeignFile("nchw_gzip"), testing::ReadBytes(ForeignFile("nchw_gzip") + ".nhwc")},
  };
  for (const Source& source : sources) {
    const uint64_t size = std::filesystem::file_size(source.path);
    for (uint64_t keep : {uint64_t{7}, uint64_t{512}, uint64_t{2100}, size / 3, size / 2,
                          size - 600, size - 8, size - 1}) {
      CAPTURE(source.path);
      CAPTURE(keep);
      const std::string cut = testing::CopyTo(source.path, folder / "cut.h5");
      std::filesystem::resize_file(cut, keep);
      try {
        Opened opened(cut);
        CHECK(ReadAllRows(opened.index, opened.reader) == source.rows);
      } catch (const Error& e) {
        CAPTURE(e.what());
        CHECK(e.code() == ErrorCode::kCorrupt);
      }
    }
  }
}

TEST_CASE("a read the file system fails is an I/O error naming the chunk; others still read") {
  TempFolder folder;
  std::vector<uint8_t> pixels;
  const std::string path = H5feedFile(folder, "zstd:3", &pixels);
  const DatasetIndex index = OpenDatasetIndex(path, {});
  FaultyFile file(io::OpenPosixFile(path));
  const ChunkLocation& bad = index.chunks[2];
  file.FailReadsTouching(bad.address + bad.stored_bytes / 2,
                         bad.address + bad.stored_bytes / 2 + 1);
  ChunkReader reader(index, file, {});
  std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
  Error e = CaughtError([&] { reader.Read(2, chunk); });
  CHECK(e.code() == ErrorCode::kIo);
  CHECK(Contains(e.what(), "chunk 2 of /images in " + path + " (rows 16-23): "));
  CHECK(Contains(e.what(), "Input/output error"));
  reader.Read(3, chunk);
  CHECK(std::equal(chunk.begin(), chunk.end(), pixels.begin() + 3 * kPerChunk * 90));

  FaultyFile once(io::OpenPosixFile(path));
  once.FailNthRead(1);
  ChunkReader flaky(index, once, {});
  flaky.Read(0, chunk);
  CHECK(CaughtError([&] { flaky.Read(1, chunk); }).code() == ErrorCode::kIo);
  flaky.Read(1, chunk);  // a retry succeeds: nothing is remembered
  CHECK(std::equal(chunk.begin(), chunk.end(), pixels.begin() + kPerChunk * 90));
}

TEST_CASE("a short read is reported as a truncated file naming the chunk") {
  TempFolder folder;
  const std::string path = H5feedFile(folder, "gzip:6");
  const DatasetIndex index = OpenDatasetIndex(path, {});
  FaultyFile file(io::OpenPosixFile(path));
  file.EndAt(index.chunks[5].address + 3);
  ChunkReader reader(index, file, {});
  std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
  reader.Read(4, chunk);
  Error e = CaughtError([&] { reader.Read(5, chunk); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 5 of /images in " + path + " (rows 40-47): "));
  CHECK(Contains(e.what(), "truncated?"));
}

TEST_CASE("bytes changed on the way from the disk are caught, never delivered") {
  TempFolder folder;
  for (const char* compression : {"none", "zstd:3", "gzip:6"}) {
    const std::string compression_name = compression;
    CAPTURE(compression_name);
    const std::string path = H5feedFile(folder, compression);
    const DatasetIndex index = OpenDatasetIndex(path, {});
    FaultyFile file(io::OpenPosixFile(path));
    const ChunkLocation& hit = index.chunks[1];
    file.FlipBytes(hit.address + hit.stored_bytes / 2, hit.address + hit.stored_bytes / 2 + 1,
                   0x10);
    ChunkReader reader(index, file, {});
    std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
    Error e = CaughtError([&] { reader.Read(1, chunk); });
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(Contains(e.what(), "chunk 1 of /images in " + path + " (rows 8-15): "));
  }
}

TEST_CASE("four threads reading every chunk at once get identical bytes") {
  TempFolder folder;
  const std::string h5feed = folder / "big.h5";
  testing::WriteH5feedFile(h5feed, Compression::Parse("zstd:3"), 3000, 16, ImageShape{16, 16, 3});
  for (const std::string& path : {h5feed, ForeignFile("nchw_gzip"), ForeignFile("partial_chunks"),
                                  ForeignFile("nchw_contiguous")}) {
    CAPTURE(path);
    Opened opened(path);
    const int64_t chunks = opened.index.chunk_count();
    const size_t bytes = static_cast<size_t>(opened.reader.chunk_bytes());
    std::vector<std::vector<uint8_t>> expected(static_cast<size_t>(chunks),
                                               std::vector<uint8_t>(bytes));
    for (int64_t c = 0; c < chunks; ++c) opened.reader.Read(c, expected[c]);
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::vector<int64_t> order(static_cast<size_t>(chunks));
        for (int64_t c = 0; c < chunks; ++c) order[c] = c;
        std::shuffle(order.begin(), order.end(), std::mt19937(t));
        std::vector<uint8_t> chunk(bytes);
        for (int round = 0; round < 3; ++round) {
          for (int64_t c : order) {
            opened.reader.Read(c, chunk);
            const size_t used =
                static_cast<size_t>(opened.index.samples_in_chunk(c) * opened.index.sample_bytes());
            mismatches[t] += !std::equal(chunk.begin(), chunk.begin() + used, expected[c].begin());
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(mismatches == std::vector<int>(4, 0));
  }
}

TEST_CASE("a chunk out of range or a buffer too small is an invalid argument") {
  TempFolder folder;
  Opened opened(H5feedFile(folder, "none"));
  std::vector<uint8_t> chunk(static_cast<size_t>(opened.reader.chunk_bytes()));
  CHECK(CaughtError([&] { opened.reader.Read(7, chunk); }).code() == ErrorCode::kInvalidArgument);
  CHECK(CaughtError([&] { opened.reader.Read(-1, chunk); }).code() == ErrorCode::kInvalidArgument);
  std::vector<uint8_t> small(chunk.size() - 1);
  CHECK(CaughtError([&] { opened.reader.Read(0, small); }).code() == ErrorCode::kInvalidArgument);
  CHECK(opened.reader.Describe(6) ==
        "chunk 6 of /images in " + opened.index.path + " (rows 48-49)");
}

}  // namespace
}  // namespace h5feed::index
