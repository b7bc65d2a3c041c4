// ListDatasets and the rest of dataset_listing.h.

#include "hdf5/dataset_listing.h"

#include <algorithm>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/type_names.h"

namespace h5feed::hdf5 {
namespace {

herr_t CollectDataset(hid_t, const char* name, const H5O_info_t* info, void* data) {
  if (info->type == H5O_TYPE_DATASET) {
    static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  }
  return 0;
}

}  // namespace

DatasetEntry DescribeDataset(hid_t dataset, const std::string& name) {
  DatasetEntry entry;
  entry.name = name;
  Datatype type(H5Dget_type(dataset));
  Dataspace space(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (!type || rank < 0) {
    throw StackError(ErrorCode::kCorrupt, "reading the type and shape of " + name, dataset);
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  entry.dims.assign(dims.begin(), dims.end());
  entry.dtype = TypeName(type.get());
  const H5T_class_t type_class = H5Tget_class(type.get());
  const size_t size = H5Tget_size(type.get());
  const bool variable = type_class == H5T_VLEN || H5Tis_variable_str(type.get()) > 0;
  entry.element_bytes = variable ? 0 : size;
  entry.is_integer = type_class == H5T_INTEGER;
  entry.is_uint8 = entry.is_integer && size == 1 && H5Tget_sign(type.get()) == H5T_SGN_NONE;
  entry.is_string = type_class == H5T_STRING;
  entry.storage = ReadDatasetStorage(dataset, dims.size(), name);
  return entry;
}

std::vector<DatasetEntry> ListDatasets(hid_t file, const std::string& path) {
  std::vector<std::string> names;
  if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, CollectDataset, &names, H5O_INFO_BASIC) < 0) {
    throw StackError(ErrorCode::kCorrupt, "listing the datasets", path);
  }
  std::sort(names.begin(), names.end());
  std::vector<DatasetEntry> datasets;
  for (const std::string& name : names) {
    const Dataset dataset = OpenDataset(file, name, path);
    datasets.push_back(DescribeDataset(dataset.get(), name));
  }
  return datasets;
}

const DatasetEntry* FindDataset(const std::vector<DatasetEntry>& datasets, std::string_view name) {
  const std::string_view bare = name.starts_with('/') ? name.substr(1) : name;
  for (const DatasetEntry& entry : datasets) {
    if (std::string_view(entry.name).substr(1) == bare) return &entry;
  }
  return nullptr;
}

Dataset OpenDataset(hid_t file, const std::string& name, const std::string& path, hid_t access) {
  Dataset dataset(H5Dopen2(file, name.c_str(), access));
  if (!dataset) throw StackError(ErrorCode::kCorrupt, "opening dataset " + name, path);
  return dataset;
}

Dataset TryOpenDataset(hid_t location, const std::string& name) {
  SilenceErrors silence;
  return Dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT));
}

bool LinkExists(hid_t location, const std::string& name) {
  SilenceErrors silence;
  return H5Lexists(location, name.c_str(), H5P_DEFAULT) > 0;
}

uint64_t StoredBytes(hid_t dataset) { return H5Dget_storage_size(dataset); }

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

std::string ListText(const std::vector<DatasetEntry>& datasets) {
  if (datasets.empty()) return "none";
  std::string text;
  for (const DatasetEntry& entry : datasets) {
    if (!text.empty()) text += "; ";
    text += entry.name + " " + entry.dtype + " " + ShapeText(entry.dims);
  }
  return text;
}

}  // namespace h5feed::hdf5
