#pragma once
// Loader::Open with the file its chunks are read from passed in, as leveldb passes its Env in
// its Options: Loader::Open passes none (the chunk source opens the dataset's location,
// source/open_chunk_source.h), and a test passes an opener that returns an
// io::RandomAccessFile that fails, ends early, flips bytes or is slow (tests/support/
// faulty_file.h), read as a local file is, to check what the trainer sees. Internal: not installed,
// not in include/h5feed/. The file's metadata (geometry, labels, the chunk table) is read by HDF5
// from the file itself at Open whatever the opener; only chunk reads go through the file it
// returns, as they do in production.

#include <functional>
#include <memory>
#include <string>

#include "h5feed/loader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::loader {

// Opens the file chunks of `dataset` are read from. Called once, by OpenLoader, on its thread,
// after the dataset's index was read; the file it returns is the loader's until it is
// destroyed, and is read from the loader's worker threads at once (RandomAccessFile's
// contract).
using ChunkFileOpener =
    std::function<std::unique_ptr<io::RandomAccessFile>(const index::DatasetIndex& dataset)>;

// Loader::Open(path, options), reading chunks through the file `open_chunk_file` returns; an
// empty opener reads them from the dataset's location, as Loader::Open does.
Loader OpenLoader(const std::string& path, const LoaderOptions& options,
                  const ChunkFileOpener& open_chunk_file);

}  // namespace h5feed::loader
