#pragma once
// Integer datasets: labels read as int64 whatever their stored type (the index, inspect and
// rechunk), and the integer tables of h5feed's schema written and read back in exactly the type
// docs/format.md gives them (checksums, the per-image table). Each function takes
// hdf5::Lock() itself.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// HDF5's types for integers of `bytes` bytes (1, 2, 4 or 8) and the signedness given: as h5feed
// stores them, little-endian whatever the machine (H5T_STD_U64LE for 8 unsigned bytes), and as
// this machine holds them (H5T_NATIVE_UINT64). HDF5's predefined types: never closed. Throws
// Error(kInternal) for another size.
hid_t StoredIntegerType(size_t bytes, bool is_signed);
hid_t MemoryIntegerType(size_t bytes, bool is_signed);

template <typename T>
hid_t StoredIntegerType() {
  return StoredIntegerType(sizeof(T), std::is_signed_v<T>);
}
template <typename T>
hid_t MemoryIntegerType() {
  return MemoryIntegerType(sizeof(T), std::is_signed_v<T>);
}

// Reads dataset `name` of `file` (named `path` in messages) as int64, whatever its integer type
// and byte order (HDF5 converts on the way). The callers check its type and shape first
// (dataset_listing.h) and say what they require of it. Throws Error(kCorrupt) naming the
// dataset, the file and HDF5's reason when it cannot be opened or read (a value that does not
// fit int64 is a failed conversion, so unsigned 64-bit values of 2^63 or more fail too).
std::vector<int64_t> ReadIntegerDataset(hid_t file, const std::string& name,
                                        const std::string& path);

// ReadIntegers and WriteIntegerDataset exist for T of int8_t to int64_t and uint8_t to uint64_t.
//
// Every value of open dataset `dataset` (named `name` in messages) when it holds integers of T's
// size and signedness (either byte order) in exactly the shape `shape`, checked before anything
// is read, so that a damaged file cannot make h5feed allocate for values it does not hold.
// nullopt when the type or shape differs: the caller says what it expected. Throws Error as
// ReadWholeDataset (whole_dataset.h) when HDF5 cannot read the values.
template <typename T>
std::optional<std::vector<T>> ReadIntegers(hid_t dataset, std::span<const int64_t> shape,
                                           const std::string& name);

// Creates dataset `name` in `location` holding `values` as integers of T stored little-endian,
// `columns` to a row: shape (N) when `columns` is 1, else (N / columns, columns). Throws as
// WriteWholeDataset.
template <typename T>
Dataset WriteIntegerDataset(hid_t location, const char* name, std::span<const T> values,
                            size_t columns = 1);

}  // namespace h5feed::hdf5
