#pragma once
// The chunks of a file on a local file system (or any file a caller opened: a test's faulty
// one). An uncompressed chunk is handed to the cache where it lies in the page cache, mapped,
// when the reader can (ChunkReader::MapInPlace); any other is read and decoded into the
// cache's buffer. Rows of files with per-image checksums are checked as they are gathered
// (ChunkReader::ChecksRows), not here: a local file's bytes are what they are, so there is
// nothing to fetch again.
//
// Thread-safety: as ChunkSource.

#include <memory>

#include "source/chunk_source.h"

namespace h5feed::source {

class LocalChunkSource final : public ChunkSource {
 public:
  LocalChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::RandomAccessFile> file,
                   const ChunkSourceOptions& options);

  cache::LoadResult Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) override;
  bool LoadsInPlace() const override { return reader_.MapsInPlace(); }
};

}  // namespace h5feed::source
