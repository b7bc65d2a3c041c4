// ReadIntegerDataset (integer_dataset.h).

#include "hdf5/integer_dataset.h"

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

std::vector<int64_t> ReadIntegerDataset(hid_t file, const std::string& name,
                                        const std::string& path) {
  const Dataset dataset = OpenDataset(file, name, path);
  const Dataspace space(H5Dget_space(dataset.get()));
  const hssize_t count = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (count < 0) throw StackError(ErrorCode::kCorrupt, "reading the shape of " + name, path);
  std::vector<int64_t> values(static_cast<size_t>(count));
  if (count > 0 &&
      H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    throw StackError(ErrorCode::kCorrupt, "reading dataset " + name, path);
  }
  return values;
}

}  // namespace h5feed::hdf5
