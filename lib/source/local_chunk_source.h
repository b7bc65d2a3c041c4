#pragma once
// The chunks of a file on a local file system (or any file a caller opened: a test's faulty
// one). An uncompressed chunk is handed to the cache where it lies, in the page cache (mapped)
// or in the buffer a direct read put it in, when the reader can (ChunkReader::MapInPlace); any
// other is read and decoded. A local file's bytes are what they are: a chunk that fails its
// check is damaged, with nothing to fetch again, and reads wait on no one to be cut short.
//
// Bytes ahead (read_ahead, for a file this source opened, read by address): the chunks the
// walker names are read ahead by the file's own threads (io/local_file.h), as many bytes at
// once as the device needs, so the device always has requests while the workers decode and
// gather. Not while the page cache holds the whole file (then nothing waits on the disk), as
// judged when each run starts.
//
// Thread-safety: as ChunkSource.

#include <memory>

#include "io/local_file.h"
#include "source/chunk_source.h"
#include "source/read_ahead.h"

namespace h5feed::source {

class LocalChunkSource final : public ChunkSource, private ReadAhead {
 public:
  // A file this source reads ahead in.
  LocalChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::LocalFile> file,
                   const ChunkSourceOptions& options);
  // A file a caller opened, read as it is (no read-ahead).
  LocalChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::RandomAccessFile> file,
                   const ChunkSourceOptions& options);

  index::ChunkReadStats Read(int64_t chunk, std::span<uint8_t> dest,
                             bool check_checksum = true) override {
    return reader_.Read(chunk, dest, check_checksum);
  }
  ReadAhead* read_ahead() override;

 private:
  io::Ahead Fetch(int64_t chunk) override;
  void Drop(int64_t chunk) override;
  void DropAll() override { local_->DropAllPrefetches(); }

  io::LocalFile* const local_;  // file_, seen as the local file it was given as; or null
};

}  // namespace h5feed::source
