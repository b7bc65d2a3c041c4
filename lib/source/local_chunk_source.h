#pragma once
// The chunks of a file on a local file system (or any file a caller opened: a test's faulty
// one). An uncompressed chunk is handed to the cache where it lies in the page cache, mapped,
// when the reader can (ChunkReader::MapInPlace); any other is read and decoded. A local file's
// bytes are what they are: a chunk that fails its check is damaged, with nothing to fetch
// again, and reads wait on no one, so nothing is cut short.
//
// Thread-safety: as ChunkSource.

#include <memory>

#include "source/chunk_source.h"

namespace h5feed::source {

class LocalChunkSource final : public ChunkSource {
 public:
  LocalChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::RandomAccessFile> file,
                   const ChunkSourceOptions& options);

  index::ChunkReadStats Read(int64_t chunk, std::span<uint8_t> dest,
                             bool check_checksum = true) override {
    return reader_.Read(chunk, dest, check_checksum);
  }
};

}  // namespace h5feed::source
