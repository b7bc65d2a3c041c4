// LocalChunkSource (local_chunk_source.h).
#include "source/local_chunk_source.h"

#include <utility>

namespace h5feed::source {

LocalChunkSource::LocalChunkSource(const index::DatasetIndex& dataset,
                                   std::unique_ptr<io::RandomAccessFile> file,
                                   const ChunkSourceOptions& options)
    : ChunkSource(
          dataset, std::move(file),
          index::ChunkReaderOptions{.verify_checksums = options.verify_checksums,
                                    .rows_checked_by_caller = options.rows_checked_by_caller,
                                    .map_file = options.map_file}) {}

}  // namespace h5feed::source
