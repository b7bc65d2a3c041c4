#pragma once
// Reads a chunk for the Loader, and reads it once more from its source when it fails its
// checksum (or cannot be decoded) and the file kept a copy that may be at fault (a remote
// file's prefetched or spilled bytes: RandomAccessFile::Forget): a response corrupted on its
// way is fetched again instead of ending the epoch. What fails twice is reported as read.
//
// Thread-safety: as ChunkReader::Read (many threads at once).

#include <cstdint>
#include <span>

#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::loader {

index::ChunkReadStats ReadRefetchingCorrupt(const index::ChunkReader& reader,
                                            const index::DatasetIndex& dataset,
                                            const io::RandomAccessFile& file, int64_t chunk,
                                            std::span<uint8_t> dest);

}  // namespace h5feed::loader
