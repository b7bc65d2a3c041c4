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

index::ChunkReadStats RemoteChunkSource::Read(int64_t chunk, std::span<uint8_t> dest,
                                              bool check_checksum) {
  try {
    return reader_.Read(chunk, dest, check_checksum);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt || !index::ReadsByAddress(dataset_.read_path)) throw;
    const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
    remote_.Forget(at.address, at.stored_bytes);
  }
  return reader_.Read(chunk, dest, check_checksum);
}

void RemoteChunkSource::StopLoadsOn(std::stop_token stop) {
  // The last run's loads have all ended (its tasks were joined): reads may wait again.
  on_stop_.reset();
  remote_.ResumeReads();
  on_stop_.emplace(std::move(stop), CancelReads{&remote_});
}

io::Ahead RemoteChunkSource::Fetch(int64_t chunk) {
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  return remote_.PrefetchAt(at.address, at.stored_bytes);
}

void RemoteChunkSource::Drop(int64_t chunk) {
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  remote_.DropPrefetch(at.address, at.stored_bytes);
}

}  // namespace h5feed::source
