#pragma once
// A chunk's stored bytes, written and read past HDF5's filters, and where a chunk lies in the
// file: what lets h5feed compress and decompress chunks itself, on many threads, outside HDF5's
// lock (docs/hdf5.md).
//
// HDF5 1.10.8 answers "where is this chunk" (H5Dget_chunk_info_by_coord, LocateChunk) by walking
// the chunk index from its start, in time linear in the chunk's place: asked for every chunk, as
// a writer and a reader of files without a chunk table must, it costs time quadratic in the
// chunks (docs/format.md, "`/chunk_index`: the chunk table"). Its other lookups
// (H5Dget_chunk_storage_size, H5Dread_chunk, H5Dwrite_chunk) search the index. So what needs no
// address asks MeasureChunk, and a writer learns where its new chunks lie with LocateNewChunk.
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

// Where the chunk at `offset` of `dataset` lies (H5Dget_chunk_info_by_coord: a walk of the
// index). Unlike H5Dget_chunk_storage_size, it says "never written" of a chunk without storage
// rather than fail.
bool LocateChunk(hid_t dataset, std::span<const uint64_t> offset, ChunkPlace& place);

// Whether the chunk at `offset` of `dataset` is stored, and its stored bytes; `place`'s address
// and filter mask are left 0. One search of the index (H5Dget_chunk_storage_size), and
// LocateChunk's walk only for a chunk that search does not find (never written).
bool MeasureChunk(hid_t dataset, std::span<const uint64_t> offset, ChunkPlace& place);

// Where HDF5 places a new allocation of `bytes` in `file` whose allocated end is `end`
// (AllocatedEnd, new_file.h), when it takes no space that was freed: there, or at the next
// multiple of the file's alignment for `bytes` of at least its threshold (H5Pset_alignment).
bool NewAllocation(hid_t file, uint64_t end, uint64_t bytes, uint64_t& address);

// Where the chunk at `offset` of `dataset` lies, written (one H5Dwrite_chunk or H5Dwrite of the
// whole chunk) since the file's allocated end was `end_before` (AllocatedEnd, new_file.h), its
// stored bytes `stored` (or, when empty, read back with H5Dread_chunk). HDF5 gives a new chunk
// the space at the end of the file (NewAllocation) in a file that keeps no freed space as small
// as a chunk (CreateNewFile): that place is taken when the chunk's stored bytes are there, read
// with the file's own descriptor. Else (the first chunk of a dataset, allocated after its
// index; a driver other than sec2; a chunk of zeros, which a hole in the file would also match)
// LocateChunk.
bool LocateNewChunk(hid_t dataset, std::span<const uint64_t> offset, uint64_t end_before,
                    std::span<const uint8_t> stored, ChunkPlace& place);

// How many chunks of `dataset` have storage (H5Dget_num_chunks: one walk of the chunk index).
// A chunk never written has none, and reads as the fill value.
bool CountStoredChunks(hid_t dataset, uint64_t& count);

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
