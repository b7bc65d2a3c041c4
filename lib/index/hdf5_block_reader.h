#pragma once
// The reads ChunkReader cannot do with pread, made through HDF5: the stored bytes of one chunk
// (H5Dread_chunk, for foreign chunked datasets: one B-tree lookup, no decoding under the
// lock) and a block of whole rows (H5Dread of a hyperslab, HDF5 decoding, for datasets whose
// chunks cut samples or whose filters only HDF5 knows).
//
// Thread-safety: every member may be called from many threads at once; each read takes
// hdf5::Lock() for its HDF5 calls only (HDF5 1.10.8 runs one call at a time anyway), so the
// caller undoes filters and transposes outside it. Owns its own handles on the file and the
// dataset, closed under the lock by the destructor.

#include <cstdint>
#include <span>
#include <string>

#include "hdf5/handle.h"
#include "index/dataset_index.h"
#include "index/scratch_buffer.h"

namespace h5feed::index {

class Hdf5BlockReader {
 public:
  // Opens index.path and index.dataset read-only. Throws Error(kCorrupt) when HDF5 cannot
  // (the file changed since the index was built?).
  explicit Hdf5BlockReader(const DatasetIndex& index);
  ~Hdf5BlockReader();
  Hdf5BlockReader(const Hdf5BlockReader&) = delete;
  Hdf5BlockReader& operator=(const Hdf5BlockReader&) = delete;

  struct RawChunk {
    std::span<const uint8_t> bytes;  // as stored: filtered, inside the buffer given
    uint32_t filter_mask = 0;
    bool stored = false;  // false: never written; HDF5 returns the fill value for it
  };

  // The stored bytes of the chunk whose first row is `first_row`, read into `buffer` (grown as
  // needed). Throws Error(kIo) when the system failed to read, kCorrupt when HDF5 found the
  // file's metadata damaged.
  RawChunk ReadRawChunk(int64_t first_row, ScratchBuffer& buffer) const;

  // Rows [first_row, first_row + rows) decoded by HDF5, in the stored layout, into `dest`
  // (rows x sample bytes). Throws as ReadRawChunk, and Error(kCorrupt) when a filter fails.
  void ReadRows(int64_t first_row, int64_t rows, std::span<uint8_t> dest) const;

 private:
  std::string path_;
  std::string dataset_name_;
  uint64_t max_stored_bytes_ = 0;  // limits::MaxStoredChunkBytes of a decoded chunk
  hdf5::File file_;                // guarded by hdf5::Lock()
  hdf5::Dataset dataset_;          // guarded by hdf5::Lock()
};

}  // namespace h5feed::index
