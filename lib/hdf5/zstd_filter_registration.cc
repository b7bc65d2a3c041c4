// RegisterZstdFilter (zstd_filter.h). Kept apart from the filter so the plugin, which must not
// link libhdf5, does not carry the one function that calls into HDF5.

#include <mutex>
#include <string>

#include "h5feed/error.h"
#include "hdf5/zstd_filter.h"

namespace h5feed::hdf5 {

void RegisterZstdFilter() {
  static std::once_flag once;
  std::call_once(once, [] {
    // If another library in this process registered a zstd 32015 filter first, ours replaces
    // it: H5Zregister overwrites a class with the same id, and both read the same frames.
    if (H5Zregister(&ZstdFilterClass()) < 0) {
      throw Error(ErrorCode::kInternal,
                  "HDF5 refused to register the zstd filter (id 32015); without it zstd "
                  "chunks cannot be written or read in this process. Check that the HDF5 "
                  "library is 1.10 or newer and not built without filter support");
    }
  });
}

}  // namespace h5feed::hdf5
