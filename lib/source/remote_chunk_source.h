#pragma once
// The chunks of a remote object (http://, https://, s3://, kept on a local disk when a spill
// folder is set). What a network adds to reading:
// - A chunk is checked whole as it is read (whatever rows_checked_by_caller says), and when it
//   fails its check (or cannot be decoded) its bytes are forgotten and fetched once more: a
//   response corrupted on its way does not end an epoch or fail a verify. What fails twice is
//   reported as read.
// - Bytes ahead (read_ahead): a chunk's stored bytes are fetched ahead of its load, so that the
//   load finds them here or on their way instead of waiting a round trip; the file holds at
//   most as many as keep its link busy (remote/readahead.h), within fetch_ahead_bytes.
// - A run's stop ends loads waiting on the server at once (StopLoadsOn).
// Chunks read through HDF5 (a foreign layout: ReadsByAddress false) get none of the first two:
// their byte ranges are HDF5's business.
//
// Thread-safety: as ChunkSource.

#include <memory>
#include <optional>
#include <stop_token>

#include "remote/remote_file.h"
#include "source/chunk_source.h"
#include "source/read_ahead.h"

namespace h5feed::source {

class RemoteChunkSource final : public ChunkSource, private ReadAhead {
 public:
  RemoteChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<remote::RemoteFile> file,
                    const ChunkSourceOptions& options);

  index::ChunkReadStats Read(int64_t chunk, std::span<uint8_t> dest,
                             bool check_checksum = true) override;
  ReadAhead* read_ahead() override {
    return index::ReadsByAddress(dataset_.read_path) ? this : nullptr;
  }
  void StopLoadsOn(std::stop_token stop) override;

 private:
  io::Ahead Fetch(int64_t chunk) override;
  void Drop(int64_t chunk) override;
  void DropAll() override { remote_.DropAllPrefetches(); }

  struct CancelReads {
    remote::RemoteFile* file;
    void operator()() const { file->CancelReads(); }
  };

  remote::RemoteFile& remote_;  // file_, seen as the remote file it was given as
  // The current run's: cancels the file's reads when the run's stop is requested.
  std::optional<std::stop_callback<CancelReads>> on_stop_;
};

}  // namespace h5feed::source
