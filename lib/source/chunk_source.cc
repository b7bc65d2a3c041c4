// ChunkSource (chunk_source.h).
#include "source/chunk_source.h"

#include <utility>

namespace h5feed::source {

ChunkSource::ChunkSource(const index::DatasetIndex& dataset,
                         std::unique_ptr<io::RandomAccessFile> file,
                         const index::ChunkReaderOptions& options)
    : dataset_(dataset), file_(std::move(file)), reader_(dataset, *file_, options) {}

}  // namespace h5feed::source
