#include "hdf5/lock.h"

namespace h5feed::hdf5 {

std::recursive_mutex& Hdf5Mutex() {
  // A function-local static: constructed on first use (thread-safe since C++11) and never
  // subject to static initialisation order, so any translation unit may lock it at any time.
  static std::recursive_mutex mutex;
  return mutex;
}

}  // namespace h5feed::hdf5
