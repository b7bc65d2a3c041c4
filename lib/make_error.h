#pragma once
// How h5feed builds the message of an Error: a format string and its arguments, checked when
// compiled (a placeholder without an argument, or an argument no formatter writes, is a
// compile error, not a garbled message at run time).
//
//   throw MakeError(ErrorCode::kCorrupt, "chunk {} of {} is truncated", chunk, path);
//
// Internal to the library, its converters and front ends: the public h5feed/error.h includes
// no third-party header (a trainer building against h5feed needs no fmt headers), so Error
// itself takes a finished message and this builds one. Byte sizes go in as ByteSize
// (byte_size.h).
//
// Not for files nvcc compiles (lib/cuda/*.cu and the headers they include): nvcc rejects fmt's
// compile-time check of a format string, so those messages are assembled by hand.

#include <utility>

#include <fmt/format.h>

#include "h5feed/error.h"

namespace h5feed {

template <typename... Args>
[[nodiscard]] Error MakeError(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  return Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace h5feed
