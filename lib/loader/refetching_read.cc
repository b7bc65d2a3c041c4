// ReadRefetchingCorrupt (refetching_read.h).
#include "loader/refetching_read.h"

#include "h5feed/error.h"

namespace h5feed::loader {

index::ChunkReadStats ReadRefetchingCorrupt(const index::ChunkReader& reader,
                                            const index::DatasetIndex& dataset,
                                            const io::RandomAccessFile& file, int64_t chunk,
                                            std::span<uint8_t> dest) {
  try {
    return reader.Read(chunk, dest);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCorrupt || !dataset.direct) throw;
    const index::ChunkLocation& at = dataset.chunks[static_cast<size_t>(chunk)];
    if (!file.Forget(at.address, at.stored_bytes)) throw;
  }
  return reader.Read(chunk, dest);
}

}  // namespace h5feed::loader
