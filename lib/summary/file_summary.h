#pragma once
// SummarizeFile: the FileSummary of a file (h5feed/file_summary.h), read in this process. The
// public entry, h5feed::InspectFile (h5feed/inspect.h, lib/inspect/), runs the open probe
// first and then this; the open probe program runs this alone (its own process).
//
// Summarizing reads only metadata, the labels, the small string datasets and an own-size file's
// per-image table: never the pixels and never the chunk index to find chunks (chunk counts come
// from the shapes: walking the index is quadratic in HDF5 1.10.8, docs/format.md,
// "/chunk_index"). Only the storage size of each dataset asks HDF5 to add up its chunks; for a
// remote file (a round trip per block of that index) a chunked dataset's storage size is left
// unknown, save an h5feed file's images, whose chunk table gives it in one read.
//
// Which dataset holds the images is hdf5::ChooseImageDataset's rule (hdf5/image_dataset.h),
// the loader's, rechunk's and verify's too: what inspect reports as images is what they read.

#include <string>
#include <string_view>

#include "h5feed/file_summary.h"
#include "h5feed/remote_options.h"

namespace h5feed::summary {

// Summarizes the file at `path` (a local path or a remote URL, read with `remote`). Throws
// Error(kNotFound) when it does not exist, Error(kCorrupt) when it is not an HDF5 file or is
// truncated or damaged, Error(kIo) when it cannot be read.
FileSummary SummarizeFile(const std::string& path, const RemoteOptions& remote = {});

// The dataset of `summary` named `name` (without a leading '/'), or nullptr.
const DatasetSummary* FindDataset(const FileSummary& summary, std::string_view name);

}  // namespace h5feed::summary
