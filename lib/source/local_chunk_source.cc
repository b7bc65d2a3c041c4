// LocalChunkSource (local_chunk_source.h).
#include "source/local_chunk_source.h"

#include <utility>

namespace h5feed::source {
namespace {

// A direct file's uncompressed chunks are handed over in the buffers they were read into
// (MapAt), whatever map_file says: nothing of it is mapped, so nothing can vanish under a
// mapping.
index::ChunkReaderOptions ReaderOptions(const ChunkSourceOptions& options) {
  return {.verify_checksums = options.verify_checksums,
          .rows_checked_by_caller = options.rows_checked_by_caller,
          .map_file = options.map_file || options.direct};
}

}  // namespace

LocalChunkSource::LocalChunkSource(const index::DatasetIndex& dataset,
                                   std::unique_ptr<io::LocalFile> file,
                                   const ChunkSourceOptions& options)
    : ChunkSource(dataset, std::move(file), ReaderOptions(options)),
      local_(static_cast<io::LocalFile*>(file_.get())) {
  local_->LimitPrefetch(options.fetch_ahead_bytes);
}

LocalChunkSource::LocalChunkSource(const index::DatasetIndex& dataset,
                                   std::unique_ptr<io::RandomAccessFile> file,
                                   const ChunkSourceOptions& options)
    : ChunkSource(dataset, std::move(file), ReaderOptions(options)), local_(nullptr) {}

ReadAhead* LocalChunkSource::read_ahead() {
  if (!local_ || !index::ReadsByAddress(dataset_.read_path)) return nullptr;
  if (local_->InPageCache()) {
    local_->DropAllPrefetches();  // the last run's: this one asks for none
    return nullptr;
  }
  return this;
}

io::Ahead LocalChunkSource::Fetch(int64_t chunk) {
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  return local_->PrefetchAt(at.address, at.stored_bytes);
}

void LocalChunkSource::Drop(int64_t chunk) {
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  local_->DropPrefetch(at.address, at.stored_bytes);
}

}  // namespace h5feed::source
