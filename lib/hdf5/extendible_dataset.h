#pragma once
// A uint8 dataset that grows chunk by chunk along its first dimension, as the Writer's /images
// does: created empty, extended before each chunk is stored (direct_chunk.h). Call under
// hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include <cstdint>
#include <span>

#include "h5feed/compression.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// Creates dataset `name` in `file`: uint8 stored as is, with no rows at first and no limit on
// them, each row of shape `row_shape` (empty: one byte a row), in chunks of `chunk_rows` whole
// rows, filtered as `compression` says, without a modification time (untimed_creation.h).
// zstd (filter 32015, registered here) is set optional, as h5py and hdf5plugin set it: a
// program without the filter can still open the file and read everything but the pixels.
// Throws Error (kIo, or kNoSpace when the disk is full) "creating dataset /NAME failed for FILE".
Dataset CreateExtendibleBytes(hid_t file, const char* name, std::span<const uint64_t> row_shape,
                              uint64_t chunk_rows, const Compression& compression);

// Adds the filter `compression` names to dataset creation list `create`: zstd (filter 32015,
// registered here) set optional as above, HDF5's deflate, or none. False when HDF5 fails,
// leaving its error stack for the caller's StackError. (Fields are filtered as /images are.)
bool SetCompressionFilter(hid_t create, const Compression& compression);

// Sets the extent of `dataset` to `dims`, one per dimension. False when HDF5 fails, leaving its
// error stack for the caller's StackError.
bool ExtendDataset(hid_t dataset, std::span<const uint64_t> dims);

}  // namespace h5feed::hdf5
