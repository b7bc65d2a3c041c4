// LocalChunkSource (local_chunk_source.h).
#include "source/local_chunk_source.h"

#include <span>
#include <utility>

namespace h5feed::source {

LocalChunkSource::LocalChunkSource(const index::DatasetIndex& dataset,
                                   std::unique_ptr<io::RandomAccessFile> file,
                                   const ChunkSourceOptions& options)
    : ChunkSource(dataset, std::move(file),
                  index::ChunkReaderOptions{.verify_checksums = options.verify_checksums,
                                            .rows_checked_by_caller = true,
                                            .map_file = options.map_file}) {}

cache::LoadResult LocalChunkSource::Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) {
  if (std::unique_ptr<io::MappedRange> mapped = reader_.MapInPlace(chunk)) {
    const std::span<const uint8_t> bytes = mapped->bytes();
    target.Adopt(bytes, std::shared_ptr<const io::MappedRange>(std::move(mapped)));
    return cache::LoadResult{bytes.size(), bytes.size()};
  }
  const index::ChunkReadStats read = reader_.Read(chunk, target.Buffer());
  return cache::LoadResult{read.bytes_read, read.bytes_decoded};
}

}  // namespace h5feed::source
