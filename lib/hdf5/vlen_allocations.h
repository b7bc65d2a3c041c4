#pragma once
// Every block HDF5 allocates for the variable-length values (strings, byte sequences) of one
// read, through the transfer list's memory manager, freed together when the read is done.
// HDF5 1.10.8 leaves values it had converted in its own conversion buffer when a read fails
// part-way: they never reach the caller's pointers and H5Dvlen_reclaim cannot see them, so only
// an allocator that remembers every block frees them all.

#include <unordered_set>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

class VlenAllocations {
 public:
  VlenAllocations() = default;
  VlenAllocations(const VlenAllocations&) = delete;
  VlenAllocations& operator=(const VlenAllocations&) = delete;
  ~VlenAllocations();

  // A transfer list whose reads allocate through this object; invalid if HDF5 refused.
  PropertyList TransferList();

 private:
  static void* Allocate(size_t size, void* self);
  // Also frees blocks allocated elsewhere (H5Aread uses HDF5's default, malloc).
  static void Free(void* block, void* self);

  std::unordered_set<void*> blocks_;
};

}  // namespace h5feed::hdf5
