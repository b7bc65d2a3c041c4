#pragma once
// Undoing a dataset's HDF5 filter pipeline on the stored bytes of one chunk, outside HDF5: the
// same result H5Dread would produce, but on any thread at once instead of behind HDF5's global
// lock. Filters are undone in reverse pipeline order, skipping those the chunk's filter mask
// says were not applied (bit i set: filter i skipped, as HDF5 records for an optional filter
// that failed, or for chunks written with H5Dwrite_chunk and a mask).
//
// Thread-safe: no shared state; the caller passes its own (per-thread) scratch buffers.

#include <cstdint>
#include <span>

#include "index/dataset_index.h"
#include "index/scratch_buffer.h"

namespace h5feed::index {

// Buffers between two stages of a pipeline; DecodeChunk uses none for the common pipelines
// (one compressor, fletcher32, shuffle of 1-byte elements), and grows them only as needed.
struct DecodeScratch {
  ScratchBuffer first;
  ScratchBuffer second;
};

// Whether DecodeChunk can undo `filters` for any filter mask: each is zstd, deflate, shuffle
// or fletcher32, and at most one compresses (so the size before each stage is known: a
// compressor's output size is the chunk size plus what the stages before it add).
bool CanDecode(std::span<const FilterStep> filters);

// Writes the decoded chunk to `out`, which must be exactly its size (K rows). Throws
// Error(kCorrupt) when a stage finds the data damaged (a broken zstd frame or zlib stream, a
// fletcher32 mismatch, a wrong size) and kUnsupported for a filter it cannot undo; messages
// name the filter and sizes, and the caller adds the chunk, dataset and file.
void DecodeChunk(std::span<const FilterStep> filters, uint32_t filter_mask,
                 std::span<const uint8_t> stored, std::span<uint8_t> out, DecodeScratch& scratch);

// True when no filter of `filters` was applied to a chunk with `filter_mask`: its stored bytes
// are the chunk itself.
bool NothingApplied(std::span<const FilterStep> filters, uint32_t filter_mask);

}  // namespace h5feed::index
