#include "hdf5/dataset_listing.h"

#include <algorithm>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {
namespace {

std::string TypeName(hid_t type) {
  const size_t bits = 8 * H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(bits);
    case H5T_FLOAT: return "float" + std::to_string(bits);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "vlen";
    case H5T_OPAQUE: return "opaque";
    case H5T_REFERENCE: return "reference";
    case H5T_BITFIELD: return "bitfield";
    default: return "unknown";
  }
}

herr_t CollectDataset(hid_t, const char* name, const H5O_info_t* info, void* data) {
  if (info->type == H5O_TYPE_DATASET) {
    static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  }
  return 0;
}

}  // namespace

DatasetEntry DescribeEntry(hid_t dataset, const std::string& name) {
  DatasetEntry entry;
  entry.name = name;
  hdf5::Datatype type(H5Dget_type(dataset));
  hdf5::Dataspace space(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (!type || rank < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading the type and shape of " + name, dataset);
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  entry.dims.assign(dims.begin(), dims.end());
  entry.dtype = TypeName(type.get());
  const H5T_class_t type_class = H5Tget_class(type.get());
  entry.is_integer = type_class == H5T_INTEGER;
  entry.is_uint8 = entry.is_integer && H5Tget_size(type.get()) == 1 &&
                   H5Tget_sign(type.get()) == H5T_SGN_NONE;
  entry.is_string = type_class == H5T_STRING;
  return entry;
}

std::vector<DatasetEntry> ListDatasetEntries(hid_t file, const std::string& path) {
  std::vector<std::string> names;
  if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, CollectDataset, &names, H5O_INFO_BASIC) < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "listing the datasets", path);
  }
  std::sort(names.begin(), names.end());
  std::vector<DatasetEntry> entries;
  for (const std::string& name : names) {
    hdf5::Dataset dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
    if (!dataset) throw hdf5::StackError(ErrorCode::kCorrupt, "opening dataset " + name, path);
    entries.push_back(DescribeEntry(dataset.get(), name));
  }
  return entries;
}

const DatasetEntry* FindEntry(const std::vector<DatasetEntry>& entries, const std::string& name) {
  const std::string wanted = !name.empty() && name.front() == '/' ? name : "/" + name;
  for (const DatasetEntry& entry : entries) {
    if (entry.name == wanted) return &entry;
  }
  return nullptr;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

std::string ListText(const std::vector<DatasetEntry>& entries) {
  if (entries.empty()) return "none";
  std::string text;
  for (const DatasetEntry& entry : entries) {
    if (!text.empty()) text += "; ";
    text += entry.name + " " + entry.dtype + " " + ShapeText(entry.dims);
  }
  return text;
}

}  // namespace h5feed::hdf5
