// OpenHdf5File (open_hdf5_file.h).

#include "hdf5/open_hdf5_file.h"

#include <filesystem>

#include "h5feed/error.h"
#include "hdf5/error.h"

namespace h5feed::hdf5 {

ReadOnlyFile OpenHdf5File(const std::string& path, FileLocking locking) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw Error(ErrorCode::kNotFound, path + " does not exist");
  if (!fs::is_regular_file(status)) {
    throw Error(ErrorCode::kInvalidArgument,
                path + " is not a regular file; give the path of an HDF5 file");
  }
  if (fs::file_size(path, ec) == 0 && !ec) {
    throw Error(ErrorCode::kCorrupt, path + " is empty, not an HDF5 file");
  }
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw StackError(ErrorCode::kIo, "reading the start of", path);
  if (is_hdf5 == 0) {
    throw Error(ErrorCode::kCorrupt,
                path + " is not an HDF5 file (it does not start with an HDF5 signature)");
  }
  return OpenReadOnlyFile(path, locking);
}

}  // namespace h5feed::hdf5
