#include "io/io_errors.h"

#include "make_error.h"

#include <string.h>

namespace h5feed::io {
namespace {

// strerror_r comes in two flavours: GNU returns the text (possibly not in `buffer`), XSI
// returns an int and fills `buffer`. Overloads pick whichever the C library declares.
[[maybe_unused]] const char* Text(const char* gnu_result, const char*) { return gnu_result; }
[[maybe_unused]] const char* Text(int xsi_result, const char* buffer) {
  return xsi_result == 0 ? buffer : "unknown error";
}

}  // namespace

std::string ErrnoText(int error_number) {
  char buffer[256] = {};
  return Text(strerror_r(error_number, buffer, sizeof(buffer)), buffer);
}

Error ReadFailedError(const std::string& path, uint64_t offset, uint64_t length, int error_number) {
  return MakeError(
      ErrorCode::kIo,
      "reading {} bytes at offset {} of {} failed: {} (errno {}); check the disk or the network "
      "file system",
      length, offset, path, ErrnoText(error_number), error_number);
}

Error TruncatedError(const std::string& path, uint64_t offset, uint64_t length, uint64_t end,
                     uint64_t missing) {
  return MakeError(
      ErrorCode::kCorrupt,
      "{}: file ends at byte {}, expected {} more (reading {} bytes at offset {}): truncated? Copy "
      "or convert the file again",
      path, end, missing, length, offset);
}

}  // namespace h5feed::io
