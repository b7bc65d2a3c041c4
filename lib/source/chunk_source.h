#pragma once
// Where the chunks of one dataset come from: everything between "chunk c of this dataset" and
// its decoded bytes, for every medium and every reader of chunks (the Loader's cache, verify,
// merge, rechunk, the bench). A source reads a chunk's stored bytes, undoes its filters and
// checks it, and adds what its medium needs: a local file hands uncompressed chunks over where
// they lie in the page cache, and reads ahead of its loads from the disk (read_ahead()); a
// remote object fetches a chunk again when it fails its check (a response corrupted on its
// way), fetches bytes ahead of their loads, and cuts loads short when a run stops. Whether a
// location is local or remote is asked once, when its source is opened (open_chunk_source.h);
// nothing above this module asks again, and nothing above it reads a chunk another way
// (lib/modules.txt keeps index/chunk_reader.h and remote/open_file.h to this module).
//
// Thread-safety: every member may be called from many threads at once, but RunControl's, which
// are called between runs (no load in flight). Borrows the dataset's index, which must outlive
// it; owns its file.

#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "cache/chunk_cache.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "source/run_control.h"

namespace h5feed::source {

class ReadAhead;

struct ChunkSourceOptions {
  bool verify_checksums = true;  // LoaderOptions::verify_checksums
  // Where the file checksums every row, the caller checks each row it uses (VerifyRow) and
  // reads skip the chunk checksum, as the Loader's gather does; false checks every chunk whole
  // as it is read (verify, merge, rechunk). A remote source checks chunks whole either way, so
  // that one failing is fetched again.
  bool rows_checked_by_caller = false;
  // A local file: uncompressed chunks used where they lie in the page cache (mapped); false
  // reads every chunk with pread.
  bool map_file = true;
  // A local file: read with O_DIRECT (io/local_file.h), never through the page cache
  // (LoaderOptions::direct). Chunks read through HDF5 (a foreign layout) are HDF5's reads.
  bool direct = false;
  // The most memory bytes read or fetched ahead of their loads may take (read_ahead()).
  uint64_t fetch_ahead_bytes = 0;
};

class ChunkSource : public RunControl {
 public:
  virtual ~ChunkSource() = default;
  ChunkSource(const ChunkSource&) = delete;
  ChunkSource& operator=(const ChunkSource&) = delete;

  // Decodes chunk c into `dest` (at least chunk_bytes()), its checksum checked unless
  // `check_checksum` is false (verify's second look at a damaged chunk, to find its bad rows)
  // or the caller checks rows (ChecksRows()). Throws Error as index::ChunkReader::Read does:
  // kCorrupt naming the chunk, kIo, kCancelled once a run's stop is requested (StopLoadsOn).
  virtual index::ChunkReadStats Read(int64_t chunk, std::span<uint8_t> dest,
                                     bool check_checksum = true) = 0;

  // RunControl: reads that wait on no one have no load to cut short and nothing to read ahead
  // (null); a source whose medium waits overrides them.
  void StopLoadsOn(std::stop_token /*stop*/) override {}
  ReadAhead* read_ahead() override { return nullptr; }

  // Loads chunk c for the cache: handed over where it lies (mapped in place, LoadsInPlace), or
  // Read into the cache's buffer.
  cache::LoadResult Load(int64_t chunk, cache::ChunkCache::LoadTarget& target);
  // Whether loads hand chunks over where they lie, so the cache needs no buffers for them.
  bool LoadsInPlace() const { return reader_.MapsInPlace(); }

  // The bytes of chunk c as stored (compressed as they are, unchecked): copied as they are by
  // a merge. Only for datasets whose chunks lie at known addresses (ReadsByAddress: h5feed
  // files); Error(kUnsupported) otherwise.
  void ReadStored(int64_t chunk, std::vector<uint8_t>& bytes) const;

  // Bytes of a decoded chunk (index::ChunkReader::chunk_bytes).
  int64_t chunk_bytes() const { return reader_.chunk_bytes(); }
  // Whether the caller must check the rows it uses with VerifyRow (rows_checked_by_caller, on
  // a file with per-row checksums and checksums verified).
  bool ChecksRows() const { return reader_.ChecksRows(); }
  // Checks dataset row `row`'s stored bytes against their checksum: Error(kCorrupt) naming the
  // file, the chunk and the row when they differ.
  void VerifyRow(int64_t row, std::span<const uint8_t> stored) const {
    reader_.VerifyRow(row, stored);
  }
  // "chunk 17 of /images in train.h5 (rows 4352-4607)": how errors name chunk c.
  std::string Describe(int64_t chunk) const { return reader_.Describe(chunk); }

 protected:
  ChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::RandomAccessFile> file,
              const index::ChunkReaderOptions& options);

  const index::DatasetIndex& dataset_;
  const std::unique_ptr<io::RandomAccessFile> file_;
  const index::ChunkReader reader_;  // reads file_
};

}  // namespace h5feed::source
