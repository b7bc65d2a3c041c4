#pragma once
// The /chunk_index dataset: one schema::ChunkRecord per chunk of /images, in chunk order
// (row i describes the chunk whose first image is i * K), with the attribute
// checksum = "xxh3-64" naming the checksum (docs/format.md). An array field's chunk table,
// /field_chunk_index/NAME, is the same dataset for the chunks of /NAME.
//
// On disk each row is a packed little-endian compound of 28 bytes: address u64 at 0,
// stored_bytes u64 at 8, filter_mask u32 at 16, checksum u64 at 20 (numpy dtype
// [("address","<u8"),("stored_bytes","<u8"),("filter_mask","<u4"),("checksum","<u8")]).
// Readers match fields by name, so a file with the fields in another order reads too. Each
// function takes hdf5::Lock() itself.

#include <hdf5.h>

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "format/schema.h"

namespace h5feed::format {

// Creates `table` in `location`, the file's root group ("chunk_index", or a field's
// "field_chunk_index/NAME", its group made already), holding `records`. Throws Error (kIo, or
// kNoSpace when the disk is full) naming the file.
void WriteChunkIndex(hid_t location, std::span<const schema::ChunkRecord> records,
                     const std::string& table = schema::kChunkIndex);

// Reads `table` of `location`, the file's root group. Throws Error kNotFound when it does not
// exist, kUnsupported when its checksum attribute names a checksum other than "xxh3-64",
// kCorrupt when its rows lack one of the four fields or number more than `max_rows` (checked
// before they are read: a damaged table cannot make h5feed allocate for rows that do not
// exist).
std::vector<schema::ChunkRecord> ReadChunkIndex(
    hid_t location, int64_t max_rows = std::numeric_limits<int64_t>::max(),
    const std::string& table = schema::kChunkIndex);

}  // namespace h5feed::format
