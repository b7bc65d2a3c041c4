#include "hdf5/vlen_allocations.h"

#include <cstdlib>

#include <hdf5.h>

namespace h5feed::hdf5 {

VlenAllocations::~VlenAllocations() {
  for (void* block : blocks_) std::free(block);
}

PropertyList VlenAllocations::TransferList() {
  PropertyList transfer(H5Pcreate(H5P_DATASET_XFER));
  if (transfer && H5Pset_vlen_mem_manager(transfer.get(), &Allocate, this, &Free, this) < 0) {
    return PropertyList();
  }
  return transfer;
}

void* VlenAllocations::Allocate(size_t size, void* self) {
  void* block = std::malloc(size == 0 ? 1 : size);  // an empty value is not a failed one
  if (block) static_cast<VlenAllocations*>(self)->blocks_.insert(block);
  return block;
}

void VlenAllocations::Free(void* block, void* self) {
  static_cast<VlenAllocations*>(self)->blocks_.erase(block);
  std::free(block);
}

}  // namespace h5feed::hdf5
