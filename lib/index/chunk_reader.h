#pragma once
// Reads chunk c of an indexed dataset and delivers its samples decoded, in NHWC order, into
// caller-provided memory: pread at the stored address, filters undone in reverse order
// honouring the chunk's filter mask, checksum checked. Datasets the fast path cannot read go
// through HDF5 under the project's HDF5 lock (DatasetIndex::read_path says which).

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::index {

class Hdf5BlockReader;

struct ChunkReadStats {
  uint64_t bytes_read = 0;     // from the file (stored bytes; rows' bytes through H5Dread)
  uint64_t bytes_decoded = 0;  // produced (decompressed)
};

struct ChunkReaderOptions {
  bool verify_checksums = true;  // XXH3-64 of every chunk (h5feed files)
  // The caller checks every sample it uses with VerifyRow: for files with per-sample
  // checksums, Read and MapInPlace then skip the chunk checksum (ChecksRows() says when).
  bool rows_checked_by_caller = false;
  // Let MapInPlace use uncompressed chunks where they lie in the page cache
  // (RandomAccessFile::MapAt). false: pread only.
  bool map_file = true;
};

// Thread-safety: Read may be called from many threads at once; each thread decodes in its own
// scratch buffers (thread_local, grown to the largest chunk it has seen, never freed before the
// thread ends), so a read allocates nothing once warm. Borrows `index` and `file`, which must
// outlive it; `file` is used by kStoredTable and kContiguous only. For kHdf5Chunk and
// kHdf5Hyperslab the reader opens its own HDF5 handle on index.path (shared by copies).
class ChunkReader {
 public:
  // Throws Error(kInvalidArgument) for an index that is not self-consistent, Error(kCorrupt)
  // when a dataset read through HDF5 cannot be opened again.
  ChunkReader(const DatasetIndex& index, const io::RandomAccessFile& file,
              ChunkReaderOptions options);

  // Bytes of a decoded chunk: chunk_samples x sample_bytes (the last chunk's padding rows
  // included; rows >= samples_in_chunk(c) are unspecified).
  int64_t chunk_bytes() const;

  // Decodes chunk c into dest (at least chunk_bytes() bytes; only those are written), its
  // checksum checked unless ChecksRows() or !check_checksum. Throws Error(kCorrupt) naming the
  // file, the dataset, the chunk index and its rows for a checksum mismatch, a decompression
  // failure or a truncated file; Error(kIo) when the read fails; Error(kInvalidArgument) for a
  // chunk out of range or a dest too small.
  ChunkReadStats Read(int64_t chunk, std::span<uint8_t> dest, bool check_checksum = true) const;

  // Whether MapInPlace can serve this dataset's chunks: an h5feed file (chunks stored whole,
  // padding included) in NHWC with no filters, and map_file on.
  bool MapsInPlace() const;

  // Chunk c where it lies in the file, checksum checked (unless ChecksRows()), when
  // MapsInPlace() and the file can be mapped: chunk_bytes() bytes of NHWC rows, read by no one
  // until now, copied nowhere. nullptr otherwise (then Read). Throws as Read does.
  std::unique_ptr<io::MappedRange> MapInPlace(int64_t chunk) const;

  // Whether the caller must check samples with VerifyRow, the chunk checksum being skipped:
  // verify_checksums and rows_checked_by_caller are on and the file has per-sample checksums.
  bool ChecksRows() const;

  // Checks the NHWC bytes of dataset row `row` against its stored checksum. Throws
  // Error(kCorrupt) naming the file, the dataset, the chunk and the row when they differ.
  // Only for files with per-sample checksums (DatasetIndex::row_checksums).
  void VerifyRow(int64_t row, std::span<const uint8_t> sample) const;

  // "chunk 17 of /images in train.h5 (rows 4352-4607)": how errors name chunk c.
  std::string Describe(int64_t chunk) const;

 private:
  // Runs read(), naming the chunk in what it throws (and advising verify for damage).
  template <typename ReadFunction>
  auto Described(int64_t chunk, ReadFunction read) const;
  ChunkReadStats ReadStored(int64_t chunk, std::span<uint8_t> dest, bool check) const;
  ChunkReadStats ReadHdf5Chunk(int64_t chunk, std::span<uint8_t> dest, bool check) const;
  ChunkReadStats ReadHyperslab(int64_t chunk, std::span<uint8_t> dest) const;
  // Checks the decoded chunk against its stored checksum when `check` and the options ask.
  void VerifyChecksum(int64_t chunk, std::span<const uint8_t> decoded, bool check) const;
  // NCHW rows of `planar` into NHWC `dest`; NHWC data is decoded in place and not passed here.
  void Interleave(std::span<const uint8_t> planar, int64_t rows, std::span<uint8_t> dest) const;

  const DatasetIndex& index_;
  const io::RandomAccessFile& file_;
  ChunkReaderOptions options_;
  std::shared_ptr<const Hdf5BlockReader> hdf5_;  // kHdf5Chunk and kHdf5Hyperslab only
};

}  // namespace h5feed::index
