#pragma once
// Datasets written or read whole, in one H5Dwrite or H5Dread: the small datasets of h5feed's
// schema (labels, the chunk table, the checksums, the per-image table of images at their own
// size). Written contiguous and without a modification time (untimed_creation.h), so that a
// conversion is byte for byte a function of its input. Each function takes hdf5::Lock()
// itself and keeps HDF5 from printing its errors.

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// Creates dataset `name` in `location` (a file or group) of type `stored_type` and shape `dims`
// (an extent of 0 makes an empty dataset), and writes `values`, laid out as `memory_type` says,
// into it when it has any element. Returns it open, for its attributes. Throws Error (kIo, or
// kNoSpace when the disk is full) "writing dataset /NAME failed for FILE".
Dataset WriteWholeDataset(hid_t location, const char* name, hid_t stored_type, hid_t memory_type,
                          std::span<const uint64_t> dims, const void* values);

// The elements of open dataset `dataset` (named `name` in messages): its extents multiplied.
// Throws Error (ReadFailureCode) "reading the shape of NAME failed for FILE" when HDF5 cannot
// read its dataspace.
int64_t ElementCount(hid_t dataset, const std::string& name);

// Reads every element of `dataset` as `memory_type` into `values`, which holds ElementCount of
// them. Throws Error (ReadFailureCode) "reading dataset NAME failed for FILE".
void ReadWholeDataset(hid_t dataset, hid_t memory_type, void* values, const std::string& name);

}  // namespace h5feed::hdf5
