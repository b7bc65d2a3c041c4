#include "format/chunk_index_dataset.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/temp_folder.h"

namespace h5feed::format {
namespace {

struct Fixture {
  testing::TempFolder folder;
  hdf5::File file{
      H5Fcreate((folder / "index.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};
};

bool operator==(const schema::ChunkRecord& a, const schema::ChunkRecord& b) {
  return a.address == b.address && a.stored_bytes == b.stored_bytes &&
         a.filter_mask == b.filter_mask && a.checksum == b.checksum;
}

TEST_CASE("chunk records read back exactly, all 64 bits of each field") {
  Fixture f;
  const std::vector<schema::ChunkRecord> records = {
      {2048, 1000, 0, 0x2D06800538D394C2ULL},
      {0xFFFFFFFFFFFFFFF0ULL, 4u << 20, 1, 0xFFFFFFFFFFFFFFFFULL},
      {123456789, 1, 0xFFFFFFFFu, 0},
  };
  WriteChunkIndex(f.file.get(), records);
  std::vector<schema::ChunkRecord> read = ReadChunkIndex(f.file.get());
  REQUIRE(read.size() == records.size());
  for (size_t i = 0; i < records.size(); ++i) CHECK(read[i] == records[i]);
}

TEST_CASE("on disk a row is the packed 28-byte little-endian compound docs/format.md gives") {
  Fixture f;
  WriteChunkIndex(f.file.get(), std::vector<schema::ChunkRecord>{{1, 2, 3, 4}});
  auto lock = hdf5::Lock();
  hdf5::Dataset dataset(H5Dopen2(f.file.get(), "chunk_index", H5P_DEFAULT));
  hdf5::Datatype type(H5Dget_type(dataset.get()));
  CHECK(H5Tget_size(type.get()) == 28);
  REQUIRE(H5Tget_nmembers(type.get()) == 4);
  const char* names[] = {"address", "stored_bytes", "filter_mask", "checksum"};
  const size_t offsets[] = {0, 8, 16, 20};
  for (unsigned i = 0; i < 4; ++i) {
    char* name = H5Tget_member_name(type.get(), i);
    CHECK(std::string(name) == names[i]);
    H5free_memory(name);
    CHECK(H5Tget_member_offset(type.get(), i) == offsets[i]);
    hdf5::Datatype member(H5Tget_member_type(type.get(), i));
    CHECK(H5Tequal(member.get(), i == 2 ? H5T_STD_U32LE : H5T_STD_U64LE) > 0);
  }
}

TEST_CASE("an empty table is a dataset of shape (0,)") {
  Fixture f;
  WriteChunkIndex(f.file.get(), std::vector<schema::ChunkRecord>{});
  CHECK(ReadChunkIndex(f.file.get()).empty());
}

TEST_CASE("a missing table is kNotFound and an unknown checksum kUnsupported") {
  Fixture f;
  try {
    ReadChunkIndex(f.file.get());
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kNotFound);
  }
  WriteChunkIndex(f.file.get(), std::vector<schema::ChunkRecord>{{1, 2, 3, 4}});
  {
    auto lock = hdf5::Lock();
    hdf5::Dataset dataset(H5Dopen2(f.file.get(), "chunk_index", H5P_DEFAULT));
    hdf5::WriteAttribute(dataset.get(), "checksum", std::string_view("crc32"));
  }
  try {
    ReadChunkIndex(f.file.get());
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kUnsupported);
    CHECK(std::string(error.what()).find("crc32") != std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::format
