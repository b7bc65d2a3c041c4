#pragma once
// Damage to one row of a field, for the loader's tests: a bit flipped where a file written
// uncompressed stores an array row (a bad sector), or a text row written over in place through
// HDF5 (a stray write). Either leaves the row's checksum in /field_checksums as it was, so a
// reader finds the row damaged.

#include <doctest/doctest.h>

#include <hdf5.h>

#include <cstdint>
#include <string>

#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/flip_byte.h"

namespace h5feed::testing {

// Flips a bit of row `row` of array field `name` (rows of `row_bytes` bytes, stored in chunks
// of `chunk` rows) where the uncompressed file at `path` stores it.
inline void FlipFieldRowBit(const std::string& path, const std::string& name, int64_t row,
                            int64_t row_bytes, int64_t chunk) {
  uint64_t address = 0;
  {
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    hdf5::Dataset dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
    REQUIRE(dataset);
    const hsize_t offset[4] = {static_cast<hsize_t>(row / chunk * chunk), 0, 0, 0};
    unsigned mask = 0;
    haddr_t where = HADDR_UNDEF;
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(dataset.get(), offset, &mask, &where, &size) >= 0);
    address = where;
  }
  FlipByteInFile(path, address + static_cast<uint64_t>(row % chunk * row_bytes), 0x01);
}

// Writes `text` over row `row` of text field `name` of the file at `path`.
inline void OverwriteTextRow(const std::string& path, const std::string& name, int64_t row,
                             const std::string& text) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  hdf5::Dataset dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
  REQUIRE(dataset);
  const hdf5::Datatype type(H5Dget_type(dataset.get()));
  const hdf5::Dataspace stored(H5Dget_space(dataset.get()));
  const hsize_t start[1] = {static_cast<hsize_t>(row)};
  const hsize_t count[1] = {1};
  REQUIRE(H5Sselect_hyperslab(stored.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
  const hdf5::Dataspace one(H5Screate_simple(1, count, nullptr));
  const char* value = text.c_str();
  REQUIRE(H5Dwrite(dataset.get(), type.get(), one.get(), stored.get(), H5P_DEFAULT, &value) >= 0);
}

}  // namespace h5feed::testing
