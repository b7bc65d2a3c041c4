#pragma once
// The chunks of a remote object (http://, https://, s3://, kept on a local disk when a spill
// folder is set). What a network adds to reading:
// - Bytes ahead: FetchAhead starts fetching a chunk's stored bytes so that its Load finds them
//   here or on their way instead of waiting a round trip; the file holds at most as many as
//   keep its link busy (remote/readahead.h), within fetch_ahead_bytes.
// - A chunk is checked whole as it is loaded, and when it fails its check (or cannot be
//   decoded) its bytes are forgotten and fetched once more: a response corrupted on its way
//   does not end the epoch. What fails twice is reported as read.
// - CancelLoads ends loads waiting on the server at once.
// Chunks read through HDF5 (a foreign layout: DatasetIndex::direct false) get none of the
// first two: their byte ranges are HDF5's business.
//
// Thread-safety: as ChunkSource.

#include <memory>

#include "remote/remote_file.h"
#include "source/chunk_source.h"

namespace h5feed::source {

class RemoteChunkSource final : public ChunkSource {
 public:
  RemoteChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<remote::RemoteFile> file,
                    const ChunkSourceOptions& options);

  cache::LoadResult Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) override;
  bool FetchesAhead() const override { return dataset_.direct; }
  Ahead FetchAhead(int64_t chunk) override;
  void DropAhead(int64_t chunk) override;
  void DropAllAhead() override { remote_.DropAllPrefetches(); }
  void CancelLoads() override { remote_.CancelReads(); }
  void ResumeLoads() override { remote_.ResumeReads(); }

 private:
  remote::RemoteFile& remote_;  // file_, seen as the remote file it was given as
};

}  // namespace h5feed::source
