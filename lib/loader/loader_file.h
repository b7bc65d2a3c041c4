#pragma once
// The file side of Loader::Open: the dataset's index, read once the options are checked and the
// file has been opened in a probe process, and the source its chunks are read from. Everything
// after these (plans, cache, slots, the run) works on what they return.

#include <memory>
#include <string>

#include "h5feed/loader.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "loader/open_loader.h"
#include "source/chunk_source.h"

namespace h5feed::loader {

// The index of the images (and labels) of the file at `path`. Checks `options` first (a bad
// option is the first error, before the file is touched), then, with open_probe, opens the file
// in a separate process, where an HDF5 crash or hang on a damaged file is reported as an
// error instead of ending this one. Passes the index's warnings to options.on_warning.
index::DatasetIndex OpenLoaderIndex(const std::string& path, const LoaderOptions& options);

// How a loader's chunk sources read (LoaderOptions' checksums, mapping, O_DIRECT), each row
// checked by the gatherer, with at most a quarter of cache_bytes more read or fetched ahead.
source::ChunkSourceOptions LoaderSourceOptions(const LoaderOptions& options);

// The source of `dataset`'s chunks: at its location, or over the file `open_chunk_file`
// returns when it is given (open_loader.h). Refuses direct for a remote file.
std::unique_ptr<source::ChunkSource> OpenLoaderSource(const index::DatasetIndex& dataset,
                                                      const LoaderOptions& options,
                                                      const ChunkFileOpener& open_chunk_file);

// Loader::dataset(): what the loader tells of the file (its path, rows, shape and chunks).
DatasetInfo DescribeDataset(const std::string& path, const index::DatasetIndex& dataset);

}  // namespace h5feed::loader
