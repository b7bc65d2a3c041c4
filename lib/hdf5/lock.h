#pragma once
// The project's one HDF5 lock.
//
// Debian's libhdf5 is thread-safe for the C API only, with one global lock inside; a sequence
// of calls (open a dataset, query, read, close) is not atomic, and the C++ and HL APIs are
// not thread-safe at all. So every HDF5 call in h5feed is made while holding hdf5::Lock(), and
// the parallel work (pread, decompression, gathering, compression) happens outside it.

#include <mutex>

namespace h5feed::hdf5 {

std::recursive_mutex& Hdf5Mutex();

// Usage: `auto lock = hdf5::Lock();` for the duration of a group of HDF5 calls.
inline std::unique_lock<std::recursive_mutex> Lock() {
  return std::unique_lock<std::recursive_mutex>(Hdf5Mutex());
}

}  // namespace h5feed::hdf5
