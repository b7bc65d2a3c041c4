#include "io/resource_limits.h"

#include <unistd.h>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::io::limits {

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return uint64_t{1} << 40;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

uint64_t MaxStoredChunkBytes(uint64_t chunk_bytes) {
  return chunk_bytes + chunk_bytes / 8 + (uint64_t{64} << 10);
}

void CheckImageDimensions(const std::vector<int64_t>& dims, const std::string& where) {
  std::string shape;
  for (int64_t d : dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  shape = "(" + shape + ")";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} claims shape {}: dimension {} is 2^63 or more, which no real dataset has; the file "
          "is damaged",
          where, shape, i);
    }
    if (i > 0 && dims[i] > kMaxImageDimension) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} claims shape {}: image dimension {} exceeds h5feed's limit of {}; the file is "
          "damaged",
          where, shape, i, kMaxImageDimension);
    }
  }
  if (dims.empty()) return;
  // Each factor is < 2^31, so a running product checked against 2^31 never overflows.
  int64_t image_bytes = 1;
  for (size_t i = 1; i < dims.size(); ++i) {
    image_bytes *= dims[i];
    if (image_bytes > kMaxImageBytes) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} claims shape {}: one image would exceed h5feed's limit of {}; the file is damaged",
          where, shape, ByteSize(kMaxImageBytes));
    }
  }
  CheckRowCount(dims[0], where);
}

void CheckRowCount(int64_t rows, const std::string& where) {
  const uint64_t memory = PhysicalMemoryBytes();
  if (rows < 0 || static_cast<uint64_t>(rows) > memory / kBytesPerImage) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} claims {} rows; h5feed keeps {} bytes per image in memory (label and epoch order), "
        "more than this machine's {}. The file is damaged, or too large to read on this machine",
        where, rows, kBytesPerImage, ByteSize(memory));
  }
}

void CheckClassCount(int64_t count, const std::string& where) {
  if (count > kMaxClasses) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} holds {} class names, more than h5feed's limit of {}; the file is damaged",
                    where, count, kMaxClasses);
  }
}

}  // namespace h5feed::io::limits
