// ReadRows (row_read.h).

#include "hdf5/row_read.h"

#include <array>

#include "hdf5/error.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

bool ReadRows(hid_t dataset, int64_t first_row, int64_t rows, std::span<uint8_t> dest) {
  KeepErrorStack keep;  // before the handles: the stack outlives their closing
  const Dataspace file_space(H5Dget_space(dataset));
  std::array<hsize_t, H5S_MAX_RANK> dims{};
  const int rank =
      file_space ? H5Sget_simple_extent_dims(file_space.get(), dims.data(), nullptr) : -1;
  if (rank < 1) {
    keep.Keep();
    return false;
  }
  std::array<hsize_t, H5S_MAX_RANK> start{};
  std::array<hsize_t, H5S_MAX_RANK> count = dims;
  start[0] = static_cast<hsize_t>(first_row);
  count[0] = static_cast<hsize_t>(rows);
  // One flat memory extent: HDF5 copies the rows as they are stored, with no strided gather.
  const hsize_t memory_dims[1] = {dest.size()};
  const Dataspace memory_space(H5Screate_simple(1, memory_dims, nullptr));
  const bool ok = memory_space &&
                  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                      count.data(), nullptr) >= 0 &&
                  H5Dread(dataset, H5T_NATIVE_UINT8, memory_space.get(), file_space.get(),
                          H5P_DEFAULT, dest.data()) >= 0;
  if (!ok) keep.Keep();
  return ok;
}

}  // namespace h5feed::hdf5
