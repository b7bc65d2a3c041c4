#pragma once
// A chunk's stored bytes, written and read past HDF5's filters, and where a chunk lies in the
// file: what lets h5feed compress and decompress chunks itself, on many threads, outside HDF5's
// lock (docs/hdf5.md). Each call is one lookup in the dataset's chunk index, logarithmic in the
// chunks (H5Dget_chunk_info(i) would walk the index from its start on every call: quadratic in
// HDF5 1.10.8, docs/format.md).
//
// A chunk is named by the coordinates of its first element, one per dimension; dimensions not
// given are 0. The functions return false when HDF5 fails and leave its error stack for the
// caller's StackError, because the code depends on who asks: a writer's failure is I/O, a
// reader tells I/O from damage (ReadFailureCode). Call under hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include <cstdint>
#include <span>

namespace h5feed::hdf5 {

struct ChunkPlace {
  bool stored = false;        // false: never written (HDF5 returns the fill value for it)
  uint64_t address = 0;       // byte offset in the file
  uint64_t stored_bytes = 0;  // as stored: filtered
  uint32_t filter_mask = 0;   // bit i set: filter i was not applied to this chunk
};

// Where the chunk at `offset` of `dataset` lies (H5Dget_chunk_info_by_coord). Unlike
// H5Dget_chunk_storage_size, it says "never written" of a chunk without storage rather than
// fail.
bool LocateChunk(hid_t dataset, std::span<const uint64_t> offset, ChunkPlace& place);

// Reads the stored bytes of the chunk at `offset` into `bytes`, which must be their size
// (LocateChunk's stored_bytes: H5Dread_chunk takes no size), and its filter mask.
bool ReadStoredChunk(hid_t dataset, std::span<const uint64_t> offset, std::span<uint8_t> bytes,
                     uint32_t& filter_mask);

// Stores `bytes` as the chunk at `offset` with filter mask 0: the caller applied every filter
// of the pipeline, exactly as HDF5 would have stored the chunk itself (H5Dwrite_chunk). The
// dataset must already extend over the chunk (extendible_dataset.h).
bool WriteStoredChunk(hid_t dataset, std::span<const uint64_t> offset,
                      std::span<const uint8_t> bytes);

}  // namespace h5feed::hdf5
