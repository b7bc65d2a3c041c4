#pragma once
// One-dimensional datasets of unsigned 64-bit integers stored H5T_STD_U64LE, written and read
// whole: the checksum tables of fields (/field_checksums/NAME, docs/format.md, "Fields").
// Written contiguous and without a modification time (untimed_creation.h). Each function takes
// hdf5::Lock() itself and keeps HDF5 from printing its errors.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// Creates dataset `name` in `location` (a file or group) holding `values`; returns it open, for
// its attributes. Throws Error (kIo, or kNoSpace) naming the dataset and the file.
Dataset WriteUint64Dataset(hid_t location, const char* name, std::span<const uint64_t> values);

// The values of dataset `name` in `location` (`path` in messages) when it holds unsigned
// 64-bit integers (either byte order) in exactly (rows), checked before anything is read;
// nullopt when it does not exist or holds anything else (the caller says what it expected).
// Throws Error (kIo when HDF5 traced the failure to the operating system, else kCorrupt) when
// it cannot be read.
std::optional<std::vector<uint64_t>> ReadUint64Dataset(hid_t location, const std::string& name,
                                                       int64_t rows, const std::string& path);

// Whether `location` holds a dataset `name` of unsigned 64-bit integers in exactly (rows):
// ReadUint64Dataset's check, reading no value.
bool HoldsUint64Rows(hid_t location, const std::string& name, int64_t rows);

}  // namespace h5feed::hdf5
