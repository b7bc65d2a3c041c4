#include "index/hdf5_filters.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstring>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/temp_folder.h"

namespace h5feed::index {
namespace {

using testing::TempFolder;

// Writes `values` as a 1-D dataset of `type` in chunks of `chunk` elements with `filters`
// applied by HDF5 itself, and returns the stored bytes of its first chunk (H5Dread_chunk).
template <typename T>
std::vector<uint8_t> StoredByHdf5(const std::string& path, const std::vector<T>& values,
                                  hid_t file_type, hid_t memory_type, hsize_t chunk,
                                  const std::vector<H5Z_filter_t>& filters) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  hsize_t dims[1] = {values.size()};
  hdf5::Dataspace space(H5Screate_simple(1, dims, nullptr));
  hdf5::PropertyList create(H5Pcreate(H5P_DATASET_CREATE));
  REQUIRE(H5Pset_chunk(create.get(), 1, &chunk) >= 0);
  for (H5Z_filter_t f : filters) {
    if (f == H5Z_FILTER_SHUFFLE) REQUIRE(H5Pset_shuffle(create.get()) >= 0);
    if (f == H5Z_FILTER_FLETCHER32) REQUIRE(H5Pset_fletcher32(create.get()) >= 0);
    if (f == H5Z_FILTER_DEFLATE) REQUIRE(H5Pset_deflate(create.get(), 6) >= 0);
  }
  hdf5::Dataset dataset(
      H5Dcreate2(file.get(), "x", file_type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT));
  REQUIRE(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  REQUIRE(H5Dflush(dataset.get()) >= 0);
  hsize_t offset[1] = {0};
  hsize_t size = 0;
  REQUIRE(H5Dget_chunk_storage_size(dataset.get(), offset, &size) >= 0);
  std::vector<uint8_t> stored(size);
  uint32_t mask = 0;
  REQUIRE(H5Dread_chunk(dataset.get(), H5P_DEFAULT, offset, &mask, stored.data()) >= 0);
  CHECK(mask == 0);
  return stored;
}

std::vector<uint8_t> Bytes(size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 29 + 3);
  return bytes;
}

TEST_CASE("fletcher32 checksums agree with HDF5's for even and odd chunk sizes") {
  TempFolder folder;
  for (size_t n : {size_t{7}, size_t{720}, size_t{1001}, size_t{5000}}) {
    CAPTURE(n);
    std::vector<uint8_t> values = Bytes(n);
    std::vector<uint8_t> stored = StoredByHdf5(folder / "f.h5", values, H5T_STD_U8LE,
                                               H5T_NATIVE_UINT8, n, {H5Z_FILTER_FLETCHER32});
    REQUIRE(stored.size() == n + 4);
    std::span<const uint8_t> data = StripFletcher32(stored);
    CHECK(std::vector<uint8_t>(data.begin(), data.end()) == values);
    const uint32_t sum = Fletcher32(values);
    // Stored little-endian after the data.
    CHECK(stored[n] == (sum & 0xFF));
    CHECK(stored[n + 3] == (sum >> 24));
  }
}

TEST_CASE("fletcher32 accepts the half-swapped checksum of old HDF5 and refuses any other") {
  std::vector<uint8_t> chunk = Bytes(100);
  const uint32_t sum = Fletcher32(chunk);
  const uint32_t swapped = ((sum & 0x00ff00ffu) << 8) | ((sum & 0xff00ff00u) >> 8);
  std::vector<uint8_t> old = chunk;
  for (int i = 0; i < 4; ++i) old.push_back(static_cast<uint8_t>(swapped >> (8 * i)));
  CHECK(StripFletcher32(old).size() == 100);

  std::vector<uint8_t> damaged = chunk;
  for (int i = 0; i < 4; ++i) damaged.push_back(static_cast<uint8_t>(sum >> (8 * i)));
  damaged[50] ^= 1;
  try {
    StripFletcher32(damaged);
    FAIL("a damaged chunk passed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("fletcher32 checksum mismatch (stored 0x") !=
          std::string::npos);
  }
  std::vector<uint8_t> tiny = {1, 2, 3};
  CHECK_THROWS_AS(StripFletcher32(tiny), Error);
}

TEST_CASE("unshuffling undoes HDF5's shuffle of 4-byte elements") {
  TempFolder folder;
  std::vector<uint32_t> values(250);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i * 2654435761u);
  std::vector<uint8_t> stored = StoredByHdf5(folder / "s.h5", values, H5T_STD_U32LE,
                                             H5T_NATIVE_UINT32, 250, {H5Z_FILTER_SHUFFLE});
  REQUIRE(stored.size() == 1000);
  std::vector<uint8_t> out(stored.size());
  Unshuffle(stored, out, 4);
  CHECK(std::memcmp(out.data(), values.data(), out.size()) == 0);  // little-endian host
  CHECK(stored != out);                                            // HDF5 did shuffle them
}

TEST_CASE("unshuffling keeps bytes past the last whole element at the end") {
  const std::string shuffled = "ABCabcZ";  // 3 elements "Aa" "Bb" "Cc", then "Z"
  std::vector<uint8_t> in(shuffled.begin(), shuffled.end()), out(in.size());
  Unshuffle(in, out, 2);
  CHECK(std::string(out.begin(), out.end()) == "AaBbCcZ");
  CHECK(ShuffleIsNoOp(100, 1));
  CHECK(ShuffleIsNoOp(4, 4));  // one element
  CHECK_FALSE(ShuffleIsNoOp(8, 4));
}

}  // namespace
}  // namespace h5feed::index
