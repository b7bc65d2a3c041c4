// RemoteChunkSource (remote_chunk_source.h).
#include "source/remote_chunk_source.h"

#include <span>
#include <utility>

#include "h5feed/error.h"

namespace h5feed::source {

RemoteChunkSource::RemoteChunkSource(const index::DatasetIndex& dataset,
                                     std::unique_ptr<remote::RemoteFile> file,
                                     const ChunkSourceOptions& options)
    : ChunkSource(dataset, std::move(file),
                  index::ChunkReaderOptions{.verify_checksums = options.verify_checksums,
                                            .rows_checked_by_caller = false,
                                            .map_file = false}),
      remote_(static_cast<remote::RemoteFile&>(*file_)) {
  remote_.LimitPrefetch(options.fetch_ahead_bytes);
}

cache::LoadResult RemoteChunkSource::Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) {
  const std::span<uint8_t> buffer = target.Buffer();
  try {
    const index::ChunkReadStats read = reader_.Read(chunk, buffer);
    return cache::LoadResult{read.bytes_read, read.bytes_decoded};
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt || !dataset_.direct) throw;
    const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
    remote_.Forget(at.address, at.stored_bytes);
  }
  const index::ChunkReadStats read = reader_.Read(chunk, buffer);
  return cache::LoadResult{read.bytes_read, read.bytes_decoded};
}

ChunkSource::Ahead RemoteChunkSource::FetchAhead(int64_t chunk) {
  if (!dataset_.direct) return Ahead::kNotNeeded;
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  switch (remote_.PrefetchAt(at.address, at.stored_bytes)) {
    case remote::RemoteFile::Prefetch::kStarted: return Ahead::kStarted;
    case remote::RemoteFile::Prefetch::kHeld: return Ahead::kHeld;
    case remote::RemoteFile::Prefetch::kFull: return Ahead::kFull;
    case remote::RemoteFile::Prefetch::kIgnored: break;
  }
  return Ahead::kNotNeeded;
}

void RemoteChunkSource::DropAhead(int64_t chunk) {
  if (!dataset_.direct) return;
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  remote_.DropPrefetch(at.address, at.stored_bytes);
}

}  // namespace h5feed::source
