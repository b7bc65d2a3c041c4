#include "io/mapped_range.h"

#include <sys/mman.h>

namespace h5feed::io {

MappedRange::~MappedRange() {
  if (base_ != nullptr) ::munmap(base_, mapped_bytes_);
}

}  // namespace h5feed::io
