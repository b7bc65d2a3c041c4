// CreateNewFile and AllocatedEnd (new_file.h).

#include "hdf5/new_file.h"

#include <cerrno>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/untimed_creation.h"
#include "io/aligned_buffer.h"
#include "make_error.h"

namespace h5feed::hdf5 {

File CreateNewFile(const std::string& path, std::string_view what) {
  PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  if (!access || H5Pset_file_locking(access.get(), true, true) < 0 ||
      H5Pset_alignment(access.get(), io::kDirectAlignment, io::kDirectAlignment) < 0 ||
      H5Pset_small_data_block_size(access.get(), 0) < 0) {
    throw StackError(ErrorCode::kInternal, what, path);
  }
  const PropertyList root = UntimedFileCreation();
  if (H5Pset_file_space_strategy(root.get(), H5F_FSPACE_STRATEGY_FSM_AGGR, /*persist=*/false,
                                 /*threshold=*/io::kDirectAlignment) < 0) {
    throw StackError(ErrorCode::kInternal, what, path);
  }
  File file(H5Fcreate(path.c_str(), H5F_ACC_EXCL, root.get(), access.get()));
  if (file) return file;
  if (ErrorStackErrno() == EEXIST) {
    throw MakeError(ErrorCode::kAlreadyExists, "{} already exists", path);
  }
  throw StackError(ErrorCode::kIo, what, path);
}

uint64_t AllocatedEnd(hid_t file, const std::string& path) {
  haddr_t end = 0;
  if (H5Fget_eoa(file, &end) < 0) {
    throw StackError(ErrorCode::kIo, "finding the end of the file", path);
  }
  return static_cast<uint64_t>(end);
}

}  // namespace h5feed::hdf5
