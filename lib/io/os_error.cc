#include "io/os_error.h"

#include "make_error.h"

#include <cerrno>
#include <cstring>

namespace h5feed::io {

bool IsNoSpaceErrno(int error_number) {
  return error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG;
}

Error NoSpaceError(std::string_view what, std::string_view path, int error_number,
                   std::string_view detail) {
  std::string cause;
  std::string remedy;
  switch (error_number) {
    case EDQUOT:
      cause = "the disk quota is used up";
      remedy = "Free space within your quota, or write the output to another disk";
      break;
    case EFBIG:
      cause =
          "the file reached the largest size allowed (by the file system, or by this "
          "process's file-size limit, `ulimit -f`)";
      remedy = "Raise the limit, or write the output to a file system that allows larger files";
      break;
    default:
      cause = "the disk is full";
      remedy = "Free space on that file system, or write the output to another disk";
      break;
  }
  std::string message = cause + ": " + std::string(what) + " failed for " + std::string(path) +
                        ". " + remedy + ", then run again.";
  if (!detail.empty()) message += " (" + std::string(detail) + ")";
  return Error(ErrorCode::kNoSpace, message);
}

Error SystemError(std::string_view what, std::string_view path, int error_number) {
  std::string reason = std::strerror(error_number);
  if (IsNoSpaceErrno(error_number)) return NoSpaceError(what, path, error_number, reason);
  ErrorCode code = ErrorCode::kIo;
  if (error_number == ENOENT) code = ErrorCode::kNotFound;
  if (error_number == EEXIST) code = ErrorCode::kAlreadyExists;
  return MakeError(code, "{} failed for {}: {}", what, path, reason);
}

}  // namespace h5feed::io
