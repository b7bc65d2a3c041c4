#include "hdf5/direct_chunk.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/extendible_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/new_file.h"
#include "hdf5/row_read.h"
#include "hdf5/zstd_filter.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

// A new file with an extendible dataset of rows of 2 x 3 bytes, in chunks of 4 rows.
struct Fixture {
  testing::TempFolder folder;
  std::string path = folder / "rows.h5";
  std::unique_lock<std::recursive_mutex> lock = Lock();
  SilenceErrors silence;
  File file = CreateNewFile(path, "creating the test file");
  Dataset rows;

  explicit Fixture(Compression compression = {Compression::Kind::kNone, 0}) {
    const uint64_t row_shape[2] = {2, 3};
    rows = CreateExtendibleBytes(file.get(), "rows", row_shape, 4, compression);
  }
};

std::vector<uint8_t> Counting(size_t bytes, uint8_t from) {
  std::vector<uint8_t> values(bytes);
  std::iota(values.begin(), values.end(), from);
  return values;
}

TEST_CASE("a stored chunk is found where it was written and reads back byte for byte") {
  Fixture f;
  const std::vector<uint8_t> first = Counting(24, 0);
  const std::vector<uint8_t> second = Counting(24, 100);
  const uint64_t eight_rows[3] = {8, 2, 3};
  REQUIRE(ExtendDataset(f.rows.get(), eight_rows));
  const uint64_t at_0[1] = {0};
  const uint64_t at_4[3] = {4, 0, 0};
  REQUIRE(WriteStoredChunk(f.rows.get(), at_0, first));
  REQUIRE(WriteStoredChunk(f.rows.get(), at_4, second));

  ChunkPlace place;
  REQUIRE(LocateChunk(f.rows.get(), at_4, place));
  CHECK(place.stored);
  CHECK(place.stored_bytes == 24);
  CHECK(place.filter_mask == 0);
  CHECK(place.address + 24 <= AllocatedEnd(f.file.get(), f.path));
  std::vector<uint8_t> read(24);
  uint32_t mask = 99;
  REQUIRE(ReadStoredChunk(f.rows.get(), at_4, read, mask));
  CHECK(read == second);
  CHECK(mask == 0);

  // Through HDF5's own read: rows 3 to 5 straddle the two chunks.
  std::vector<uint8_t> rows(3 * 6);
  REQUIRE(ReadRows(f.rows.get(), 3, 3, rows));
  std::vector<uint8_t> expected(first.begin() + 18, first.end());
  expected.insert(expected.end(), second.begin(), second.begin() + 12);
  CHECK(rows == expected);
}

TEST_CASE("a chunk never written is found not stored, and reading past the rows fails") {
  Fixture f;
  const uint64_t eight_rows[3] = {8, 2, 3};
  REQUIRE(ExtendDataset(f.rows.get(), eight_rows));
  ChunkPlace place;
  const uint64_t at_4[1] = {4};
  REQUIRE(LocateChunk(f.rows.get(), at_4, place));
  CHECK_FALSE(place.stored);
  CHECK(place.stored_bytes == 0);
  std::vector<uint8_t> rows(6);
  CHECK_FALSE(ReadRows(f.rows.get(), 8, 1, rows));
  CHECK_FALSE(ErrorStackText().empty());
}

// Bytes no two chunks share and that are never all zeros: xorshift noise.
std::vector<uint8_t> Noise(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> values(bytes);
  for (uint8_t& value : values) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    value = static_cast<uint8_t>(seed | 1);
  }
  return values;
}

TEST_CASE("a new file gives each new chunk the space at its end, where the writer finds it") {
  // As a conversion writes: chunks of a page or more (images) between small ones (fields).
  Fixture f;
  const uint64_t big_row[1] = {1000};
  Dataset big = CreateExtendibleBytes(f.file.get(), "big", big_row, 5, {});
  int64_t walks = 0;
  for (uint64_t c = 0; c < 60; ++c) {
    const bool small = c % 3 != 0;
    const hid_t dataset = small ? f.rows.get() : big.get();
    const uint64_t chunk = small ? c : c / 3;
    const uint64_t rows = small ? 4 : 5;
    const std::vector<uint8_t> bytes = Noise(small ? 24 : 5000, c + 1);
    const uint64_t small_dims[3] = {(chunk + 1) * rows, 2, 3};
    const uint64_t big_dims[2] = {(chunk + 1) * rows, 1000};
    REQUIRE(small ? ExtendDataset(dataset, small_dims) : ExtendDataset(dataset, big_dims));
    const uint64_t end = AllocatedEnd(f.file.get(), f.path);
    const uint64_t offset[1] = {chunk * rows};
    REQUIRE(WriteStoredChunk(dataset, offset, bytes));
    CAPTURE(c);
    ChunkPlace walked;
    REQUIRE(LocateChunk(dataset, offset, walked));
    uint64_t guess = 0;
    REQUIRE(NewAllocation(f.file.get(), end, bytes.size(), guess));
    if (guess != walked.address) ++walks;
    ChunkPlace found;
    REQUIRE(LocateNewChunk(dataset, offset, end, bytes, found));
    CHECK(found.stored);
    CHECK(found.address == walked.address);
    CHECK(found.stored_bytes == bytes.size());
    if (!small) CHECK(found.address % 4096 == 0);
  }
  // Only the first chunk of each dataset, allocated after the dataset's index, lies elsewhere.
  CHECK(walks <= 2);
}

TEST_CASE("a new chunk whose bytes are not at the file's end is found by walking the index") {
  Fixture f;
  const uint64_t four_rows[3] = {4, 2, 3};
  REQUIRE(ExtendDataset(f.rows.get(), four_rows));
  const uint64_t at_0[1] = {0};
  const std::vector<uint8_t> zeros(24, 0);  // a hole in the file reads as zeros too
  REQUIRE(WriteStoredChunk(f.rows.get(), at_0, zeros));
  ChunkPlace walked;
  REQUIRE(LocateChunk(f.rows.get(), at_0, walked));
  for (const uint64_t end_before : {uint64_t{0}, walked.address}) {
    CAPTURE(end_before);
    ChunkPlace found;
    REQUIRE(LocateNewChunk(f.rows.get(), at_0, end_before, zeros, found));
    CHECK(found.address == walked.address);
    CHECK(found.stored_bytes == 24);
  }
  // Read back through HDF5 when the caller has no stored bytes (HDF5 applied the filters).
  const std::vector<uint8_t> noise = Noise(24, 7);
  const uint64_t eight_rows[3] = {8, 2, 3};
  REQUIRE(ExtendDataset(f.rows.get(), eight_rows));
  const uint64_t end = AllocatedEnd(f.file.get(), f.path);
  const uint64_t at_4[1] = {4};
  REQUIRE(WriteStoredChunk(f.rows.get(), at_4, noise));
  ChunkPlace found;
  REQUIRE(LocateNewChunk(f.rows.get(), at_4, end, {}, found));
  REQUIRE(LocateChunk(f.rows.get(), at_4, walked));
  CHECK(found.address == walked.address);
  CHECK(found.stored_bytes == 24);
}

TEST_CASE("measuring a chunk gives its stored bytes, and says a chunk never written is not") {
  Fixture f;
  const uint64_t eight_rows[3] = {8, 2, 3};
  REQUIRE(ExtendDataset(f.rows.get(), eight_rows));
  const uint64_t at_0[1] = {0};
  REQUIRE(WriteStoredChunk(f.rows.get(), at_0, Noise(24, 3)));
  ChunkPlace place;
  REQUIRE(MeasureChunk(f.rows.get(), at_0, place));
  CHECK(place.stored);
  CHECK(place.stored_bytes == 24);
  const uint64_t at_4[1] = {4};
  REQUIRE(MeasureChunk(f.rows.get(), at_4, place));
  CHECK_FALSE(place.stored);
}

TEST_CASE("zstd is set optional with its level, deflate with its level") {
  Fixture zstd(Compression{Compression::Kind::kZstd, 5});
  const DatasetStorage stored = DescribeDataset(zstd.rows.get(), "/rows").storage;
  REQUIRE(stored.filters.size() == 1);
  CHECK(stored.filters[0].id == static_cast<int>(kZstdFilterId));
  CHECK(stored.filters[0].values == std::vector<unsigned>{5});
  CHECK(stored.chunk == std::vector<int64_t>{4, 2, 3});

  Fixture deflate(Compression{Compression::Kind::kDeflate, 2});
  CHECK(FilterNames(DescribeDataset(deflate.rows.get(), "/rows").storage.filters) ==
        std::vector<std::string>{"gzip:2"});
}

TEST_CASE("a new file is never one that exists, and closing says whether HDF5 succeeded") {
  Fixture f;
  CHECK(f.rows.close());
  CHECK_FALSE(f.rows.valid());
  CHECK(f.rows.close());  // closing nothing succeeds
  CHECK(f.file.close());
  const Error exists = testing::CaughtError([&] { CreateNewFile(f.path, "creating it again"); });
  CHECK(exists.code() == ErrorCode::kAlreadyExists);
}

}  // namespace
}  // namespace h5feed::hdf5
