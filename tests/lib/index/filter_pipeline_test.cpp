#include "index/filter_pipeline.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstring>
#include <string>
#include <vector>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index/hdf5_filters.h"
#include "support/one_shot_compress.h"
#include "support/temp_folder.h"

namespace h5feed::index {
namespace {

using testing::TempFolder;

FilterStep Step(FilterKind kind, int id, std::vector<unsigned> data = {}) {
  return FilterStep{kind, id, std::move(data)};
}
const FilterStep kZstd = Step(FilterKind::kZstd, 32015, {3});
const FilterStep kDeflate = Step(FilterKind::kDeflate, 1, {6});
const FilterStep kFletcher = Step(FilterKind::kFletcher32, 3);

std::vector<uint8_t> Chunk(size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>((i / 7) % 13 + i % 3);
  return bytes;
}

void AppendFletcher(std::vector<uint8_t>& bytes) {
  const uint32_t sum = Fletcher32(bytes);
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(sum >> (8 * i)));
}

std::vector<uint8_t> Decode(const std::vector<FilterStep>& filters, uint32_t mask,
                            const std::vector<uint8_t>& stored, size_t size) {
  DecodeScratch scratch;
  std::vector<uint8_t> out(size, 0xEE);
  DecodeChunk(filters, mask, stored, out, scratch);
  return out;
}

ErrorCode CodeOf(const std::vector<FilterStep>& filters, uint32_t mask,
                 const std::vector<uint8_t>& stored, size_t size) {
  try {
    Decode(filters, mask, stored, size);
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

TEST_CASE("pipelines of known filters with at most one compressor can be decoded") {
  CHECK(CanDecode(std::vector<FilterStep>{}));
  CHECK(CanDecode(std::vector<FilterStep>{kZstd}));
  CHECK(
      CanDecode(std::vector<FilterStep>{Step(FilterKind::kShuffle, 2, {1}), kDeflate, kFletcher}));
  CHECK_FALSE(CanDecode(std::vector<FilterStep>{kZstd, kDeflate}));
  CHECK_FALSE(CanDecode(std::vector<FilterStep>{Step(FilterKind::kOther, 32000)}));
}

TEST_CASE("a zstd or deflate chunk decodes straight into the output") {
  const std::vector<uint8_t> chunk = Chunk(5000);
  CHECK(Decode({kZstd}, 0, testing::ZstdCompress(chunk, 3), chunk.size()) == chunk);
  CHECK(Decode({kDeflate}, 0, testing::DeflateCompress(chunk, 6), chunk.size()) == chunk);
  CHECK(Decode({}, 0, chunk, chunk.size()) == chunk);
}

TEST_CASE("filters the chunk's mask marks as skipped are not undone") {
  const std::vector<uint8_t> chunk = Chunk(3000);
  CHECK(NothingApplied(std::vector<FilterStep>{kZstd}, 1));
  CHECK_FALSE(NothingApplied(std::vector<FilterStep>{kZstd}, 0));
  CHECK(Decode({kZstd}, 1, chunk, chunk.size()) == chunk);
  // zstd skipped, fletcher32 applied: the checksum follows the raw bytes.
  std::vector<uint8_t> stored = chunk;
  AppendFletcher(stored);
  CHECK(Decode({kZstd, kFletcher}, 1, stored, chunk.size()) == chunk);
  // An unknown filter that was skipped is no obstacle.
  CHECK(Decode({Step(FilterKind::kOther, 32000), kZstd}, 1, testing::ZstdCompress(chunk, 1),
               chunk.size()) == chunk);
}

TEST_CASE("a checksum applied before compression is checked after decompressing") {
  const std::vector<uint8_t> chunk = Chunk(4096);
  std::vector<uint8_t> with_sum = chunk;
  AppendFletcher(with_sum);
  CHECK(Decode({kFletcher, kZstd}, 0, testing::ZstdCompress(with_sum, 3), chunk.size()) == chunk);
}

TEST_CASE("shuffle, deflate and fletcher32 written by HDF5 decode to what was written") {
  TempFolder folder;
  std::vector<uint32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * i + 17);
  std::vector<uint8_t> stored;
  {
    auto lock = hdf5::Lock();
    const std::string path = folder / "p.h5";
    hdf5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    hsize_t dims[1] = {values.size()};
    hdf5::Dataspace space(H5Screate_simple(1, dims, nullptr));
    hdf5::PropertyList create(H5Pcreate(H5P_DATASET_CREATE));
    REQUIRE(H5Pset_chunk(create.get(), 1, dims) >= 0);
    REQUIRE(H5Pset_shuffle(create.get()) >= 0);
    REQUIRE(H5Pset_deflate(create.get(), 4) >= 0);
    REQUIRE(H5Pset_fletcher32(create.get()) >= 0);
    hdf5::Dataset dataset(H5Dcreate2(file.get(), "x", H5T_STD_U32LE, space.get(), H5P_DEFAULT,
                                     create.get(), H5P_DEFAULT));
    REQUIRE(H5Dwrite(dataset.get(), H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     values.data()) >= 0);
    hsize_t offset[1] = {0}, size = 0;
    REQUIRE(H5Dget_chunk_storage_size(dataset.get(), offset, &size) >= 0);
    stored.resize(size);
    uint32_t mask = 0;
    REQUIRE(H5Dread_chunk(dataset.get(), H5P_DEFAULT, offset, &mask, stored.data()) >= 0);
  }
  // HDF5 set the shuffle's element size to the type's: 4 bytes.
  const std::vector<FilterStep> pipeline = {Step(FilterKind::kShuffle, 2, {4}), kDeflate,
                                            kFletcher};
  std::vector<uint8_t> decoded = Decode(pipeline, 0, stored, values.size() * 4);
  CHECK(std::memcmp(decoded.data(), values.data(), decoded.size()) == 0);
}

TEST_CASE("damaged or mis-sized chunks are corrupt, unknown filters unsupported") {
  const std::vector<uint8_t> chunk = Chunk(2000);
  std::vector<uint8_t> frame = testing::ZstdCompress(chunk, 3);
  frame[frame.size() / 2] ^= 0xFF;
  frame[0] ^= 0xFF;
  CHECK(CodeOf({kZstd}, 0, frame, chunk.size()) == ErrorCode::kCorrupt);
  CHECK(CodeOf({kZstd}, 0, testing::ZstdCompress(chunk, 3), chunk.size() + 1) ==
        ErrorCode::kCorrupt);
  CHECK(CodeOf({}, 0, chunk, chunk.size() - 1) == ErrorCode::kCorrupt);
  CHECK(CodeOf({Step(FilterKind::kOther, 32000)}, 0, chunk, chunk.size()) ==
        ErrorCode::kUnsupported);
  CHECK(CodeOf({kZstd, kDeflate}, 0, chunk, chunk.size()) == ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace h5feed::index
