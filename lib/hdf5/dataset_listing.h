#pragma once
// The datasets of a file by name, type and shape only: enough to pick the image and label
// datasets and to say what a file holds when it holds no images. Unlike ListDatasets
// (inspect/file_summary.h) it never asks for storage sizes, which walks every chunk index.
// Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::hdf5 {

struct DatasetEntry {
  std::string name;           // from the root, with a leading '/': "/images"
  std::vector<int64_t> dims;  // empty for a scalar
  std::string dtype;          // "uint8", "int64", "float32", "string", "compound", ...
  bool is_uint8 = false;
  bool is_integer = false;
  bool is_string = false;
};

// Type and shape of an open dataset. Throws Error(kCorrupt) when HDF5 cannot read them.
DatasetEntry DescribeEntry(hid_t dataset, const std::string& name);

// Every dataset reachable from the root of `file`, in name order. Throws Error(kCorrupt).
std::vector<DatasetEntry> ListDatasetEntries(hid_t file, const std::string& path);

// The entry named `name` ("images" or "/images"), or nullptr.
const DatasetEntry* FindEntry(const std::vector<DatasetEntry>& entries, const std::string& name);

// "(10, 4, 4, 3)"; "(5,)" for one dimension, as Python writes it.
std::string ShapeText(const std::vector<int64_t>& dims);
// "/images uint8 (10, 4, 4, 3); /labels int64 (10,)", or "none".
std::string ListText(const std::vector<DatasetEntry>& entries);

}  // namespace h5feed::hdf5
