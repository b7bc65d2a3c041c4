// WriteWholeDataset, ElementCount and ReadWholeDataset (whole_dataset.h).

#include "hdf5/whole_dataset.h"

#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"

namespace h5feed::hdf5 {

Dataset WriteWholeDataset(hid_t location, const char* name, hid_t stored_type, hid_t memory_type,
                          std::span<const uint64_t> dims, const void* values) {
  auto lock = Lock();
  SilenceErrors silence;
  const std::string what = "writing dataset /" + std::string(name);
  const std::vector<hsize_t> extents(dims.begin(), dims.end());
  const Dataspace space(
      H5Screate_simple(static_cast<int>(extents.size()), extents.data(), nullptr));
  if (!space) throw StackError(ErrorCode::kIo, what, location);
  const PropertyList untimed = UntimedDatasetCreation();
  Dataset dataset(H5Dcreate2(location, name, stored_type, space.get(), H5P_DEFAULT, untimed.get(),
                             H5P_DEFAULT));
  if (!dataset) throw StackError(ErrorCode::kIo, what, location);
  uint64_t elements = 1;
  for (uint64_t extent : dims) elements *= extent;
  if (elements > 0 &&
      H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
    throw StackError(ErrorCode::kIo, what, location);
  }
  return dataset;
}

int64_t ElementCount(hid_t dataset, const std::string& name) {
  auto lock = Lock();
  SilenceErrors silence;
  const Dataspace space(H5Dget_space(dataset));
  const hssize_t count = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (count < 0) throw StackError(ReadFailureCode(), "reading the shape of " + name, dataset);
  return count;
}

void ReadWholeDataset(hid_t dataset, hid_t memory_type, void* values, const std::string& name) {
  auto lock = Lock();
  SilenceErrors silence;
  if (H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
    throw StackError(ReadFailureCode(), "reading dataset " + name, dataset);
  }
}

}  // namespace h5feed::hdf5
