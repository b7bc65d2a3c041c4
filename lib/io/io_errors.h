#pragma once
// The two ways a positional read fails, worded once so that every RandomAccessFile (the POSIX
// one, and the fault-injecting ones tests wrap around it) reports them alike.

#include <cstdint>
#include <string>

#include "h5feed/error.h"

namespace h5feed::io {

// Error(kIo): the system refused to read `length` bytes at `offset` of `path` with
// `error_number` (its strerror text is included).
Error ReadFailedError(const std::string& path, uint64_t offset, uint64_t length, int error_number);

// Error(kCorrupt): `path` ended at byte `end` while `missing` more bytes of a read of `length`
// bytes at `offset` were expected. A file shorter than its own metadata says is truncated
// (an interrupted copy or download, a full disk while writing).
Error TruncatedError(const std::string& path, uint64_t offset, uint64_t length, uint64_t end,
                     uint64_t missing);

// strerror text of `error_number`, thread-safe ("Input/output error").
std::string ErrnoText(int error_number);

}  // namespace h5feed::io
