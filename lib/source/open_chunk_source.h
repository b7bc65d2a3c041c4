#pragma once
// Opens the source of a dataset's chunks: the one place that asks whether its location is a
// local file or a remote object, and the seam a new medium plugs into (a class beside
// local_chunk_source.h and remote_chunk_source.h, and a branch here).

#include <memory>

#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "source/chunk_source.h"

namespace h5feed::source {

// The source of `dataset`'s chunks at its location (DatasetIndex::location): a local path, or
// the remote object at the version its index was read from (DatasetIndex::remote), so chunks
// are never read from another version than the index describes. Throws as io::OpenPosixFile
// and remote::OpenRemoteFile do.
std::unique_ptr<ChunkSource> OpenChunkSource(const index::DatasetIndex& dataset,
                                             const ChunkSourceOptions& options);

// The same, reading the file `file` instead, as a local file is read: a test's file that fails,
// ends early, flips bytes or is slow (tests/support/faulty_file.h), read as production reads.
std::unique_ptr<ChunkSource> ChunkSourceOver(const index::DatasetIndex& dataset,
                                             std::unique_ptr<io::RandomAccessFile> file,
                                             const ChunkSourceOptions& options);

}  // namespace h5feed::source
