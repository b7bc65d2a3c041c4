#pragma once
// How a dataset is stored, from its creation properties (part of its object header):
// contiguous, chunked or other, the chunk shape, the filter pipeline with each filter's client
// values, the fill value, external files, and where contiguous data starts. Read once per
// dataset, by DescribeDataset (dataset_listing.h), for every reader: what `h5feed inspect`
// shows, how the loader's index reads the images (which filters it undoes itself), and which
// filters the converters' HDF5 source needs HDF5 to run. Never reads the chunk index (walking
// it is quadratic in HDF5 1.10.8) nor the data. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::hdf5 {

// HDF5's own filters that h5feed undoes itself (H5Zpublic.h), for callers that need not
// include it; zstd_filter.h has kZstdFilterId.
inline constexpr int kDeflateFilterId = 1;
inline constexpr int kShuffleFilterId = 2;
inline constexpr int kFletcher32FilterId = 3;

// One step of a filter pipeline.
struct Filter {
  int id = -1;  // the HDF5 filter id; -1 when HDF5 could not describe this step
  // The client values as stored (gzip, zstd: [0] = level; shuffle: [0] = element bytes), at
  // most 16 (the filters h5feed names or undoes use the first alone; blosc stores 7).
  std::vector<unsigned> values;
  // As messages and `h5feed inspect` show it (type_names.h): "gzip:4", "zstd:3", "shuffle",
  // "NAME (filter ID)"; "unreadable filter" when id is -1.
  std::string name;
};

enum class StorageKind {
  kContiguous,
  kChunked,
  kCompact,
  kOther,  // virtual, or a layout HDF5 could not read
};

struct DatasetStorage {
  StorageKind kind = StorageKind::kOther;
  std::vector<int64_t> chunk;   // kChunked: the chunk shape, one extent per dimension
  std::vector<Filter> filters;  // in pipeline order (the order HDF5 applies them on write)
  // The fill value as uint8 (what HDF5 returns for image pixels never written); 0 when the
  // file defines none or it is not a number.
  uint8_t fill_value = 0;
  int external_files = 0;  // contiguous data kept in other files (H5Pset_external)
  // Contiguous data in this file, once written: the byte where it starts (H5Dget_offset).
  std::optional<uint64_t> address;
  // What could not be read, with HDF5's reason (kCorrupt "reading the filters of /x failed for
  // FILE"): the first failure. The parts that failed are left out (a filter step keeps its
  // place with id -1), so a listing still says what the file holds; readers of the data throw
  // it.
  std::optional<Error> problem;
};

// The storage of the open dataset `dataset` of `rank` dimensions, named `name` in messages.
// Never throws for what it cannot read: it records it in `problem`.
DatasetStorage ReadDatasetStorage(hid_t dataset, size_t rank, const std::string& name);

// Whether this process's HDF5 can run filter `id`, h5feed's zstd registered first; HDF5 also
// looks for a plugin on HDF5_PLUGIN_PATH. False for -1 (a step that could not be read).
bool FilterAvailable(int id);

// The names of `filters`, in order.
std::vector<std::string> FilterNames(const std::vector<Filter>& filters);

}  // namespace h5feed::hdf5
