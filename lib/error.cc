#include "h5feed/error.h"

namespace h5feed {

std::string_view ToString(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kIo: return "I/O error";
    case ErrorCode::kNoSpace: return "no space left";
    case ErrorCode::kCorrupt: return "corrupt data";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kCuda: return "CUDA error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

}  // namespace h5feed
