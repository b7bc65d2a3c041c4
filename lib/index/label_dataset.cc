#include "index/label_dataset.h"

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/handle.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/strings.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::index {

std::vector<int64_t> ReadLabels(hid_t file, const std::string& name, int64_t count,
                                const std::string& path) {
  const std::string where = "labels dataset " + name + " in " + path;
  if (!hdf5::LinkExists(file, name)) {
    throw MakeError(ErrorCode::kNotFound, "{} does not exist", where);
  }
  const hdf5::DatasetEntry entry =
      hdf5::DescribeDataset(hdf5::OpenDataset(file, name, path).get(), name);
  const std::vector<int64_t>& d = entry.dims;
  if (!entry.is_integer || !(d.size() == 1 || (d.size() == 2 && d[1] == 1))) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} holds {} {}; labels must be integers of shape (N,) or (N, 1). Name the right dataset, "
        "or none for all-0 labels",
        where, entry.dtype, hdf5::ShapeText(d));
  }
  if (d[0] != count) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} holds {} labels for {} images; there must be one label per image", where,
                    d[0], count);
  }
  return hdf5::ReadIntegerDataset(file, name, path);
}

std::vector<std::string> ReadClassesIfAny(hid_t file, const std::string& name,
                                          const std::string& path) {
  {
    const hdf5::Dataset dataset = hdf5::TryOpenDataset(file, name);
    if (!dataset) return {};
    hdf5::DatasetEntry entry = hdf5::DescribeDataset(dataset.get(), name);
    if (!entry.is_string || entry.dims.size() != 1) return {};
    io::limits::CheckClassCount(entry.dims[0], "class names " + name + " in " + path);
  }
  try {
    return hdf5::ReadStringDataset(file, name.c_str());
  } catch (const Error& e) {
    throw MakeError(ErrorCode::kCorrupt, "reading class names {} in {}: {}", name, path, e.what());
  }
}

}  // namespace h5feed::index
