#pragma once
// The datasets of a file: name, type, shape, and how each is stored (dataset_storage.h); finding
// and opening one by name. Enough to pick the image and label datasets (image_dataset.h) and to
// say what a file holds. Reads object headers only: never the data, and never a chunk index
// (StoredBytes does, for `h5feed inspect` alone: walking it is quadratic in HDF5 1.10.8,
// docs/format.md). Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hdf5/dataset_storage.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

struct DatasetEntry {
  std::string name;           // from the root, with a leading '/': "/images"
  std::vector<int64_t> dims;  // empty for a scalar
  std::string dtype;          // type_names.h: "uint8", "int16 (big-endian)", "string", ...
  size_t element_bytes = 0;   // bytes per element; 0 for variable-length types
  bool is_uint8 = false;
  bool is_integer = false;
  bool is_string = false;
  // Chunk shape (empty unless chunked), filters, fill value, ...; what of it HDF5 could not
  // read is its `problem`, which readers of the data throw.
  DatasetStorage storage;
};

// Type, shape and storage of an open dataset. Throws Error(kCorrupt) naming `name` and its
// file when HDF5 cannot read the type or shape.
DatasetEntry DescribeDataset(hid_t dataset, const std::string& name);

// Every dataset reachable from the root of `file` (named `path` in messages), in name order.
// Throws Error(kCorrupt) when the file's metadata cannot be read.
std::vector<DatasetEntry> ListDatasets(hid_t file, const std::string& path);

// The dataset named `name` ("images" or "/images"), or nullptr.
const DatasetEntry* FindDataset(const std::vector<DatasetEntry>& datasets, std::string_view name);

// Opens dataset `name` of `file` (named `path`) with dataset access list `access`. Throws
// Error(kCorrupt) "opening dataset NAME" with HDF5's reason when it cannot.
Dataset OpenDataset(hid_t file, const std::string& name, const std::string& path,
                    hid_t access = H5P_DEFAULT);

// Dataset `name` of `location` when it exists and HDF5 opens it as a dataset; else an empty
// Dataset (a file may hold a group, or a broken link, under a name h5feed looks for).
Dataset TryOpenDataset(hid_t location, const std::string& name);

// Whether `location` holds a link named `name` ("labels", "/g/labels"). False also when HDF5
// cannot tell: HDF5 1.10.8 fails, rather than answer no, when a group on the way does not
// exist, and a reader then finds nothing to read either way.
bool LinkExists(hid_t location, const std::string& name);

// What the dataset occupies in the file (H5Dget_storage_size). For a chunked dataset HDF5
// walks its whole chunk index for this, quadratic in the chunks in HDF5 1.10.8.
uint64_t StoredBytes(hid_t dataset);

// "(10, 4, 4, 3)"; "(5,)" for one dimension, as Python writes it.
std::string ShapeText(const std::vector<int64_t>& dims);
// "/images uint8 (10, 4, 4, 3); /labels int64 (10,)", or "none".
std::string ListText(const std::vector<DatasetEntry>& datasets);

}  // namespace h5feed::hdf5
