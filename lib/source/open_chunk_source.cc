// OpenChunkSource and ChunkSourceOver (open_chunk_source.h).
#include "source/open_chunk_source.h"

#include <utility>

#include "remote/open_remote_file.h"
#include "source/local_chunk_source.h"
#include "source/remote_chunk_source.h"

namespace h5feed::source {

std::unique_ptr<ChunkSource> OpenChunkSource(const index::DatasetIndex& dataset,
                                             const ChunkSourceOptions& options) {
  if (dataset.location.remote()) {
    return std::make_unique<RemoteChunkSource>(dataset, remote::OpenRemoteFile(dataset.location),
                                               options);
  }
  return std::make_unique<LocalChunkSource>(
      dataset,
      io::OpenLocalFile(dataset.location.text(),
                        io::LocalFileOptions{.direct = options.direct, .map = options.map_file}),
      options);
}

std::unique_ptr<ChunkSource> ChunkSourceOver(const index::DatasetIndex& dataset,
                                             std::unique_ptr<io::RandomAccessFile> file,
                                             const ChunkSourceOptions& options) {
  return std::make_unique<LocalChunkSource>(dataset, std::move(file), options);
}

}  // namespace h5feed::source
