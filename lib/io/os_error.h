#pragma once
// Errors from the operating system (errno), as h5feed::Error with the right code and a
// message that says what failed, on which path, and what to do.
//
// One place decides what a full disk looks like, for failures seen directly (write, fsync,
// rename) and for those HDF5 reports in its error stack (hdf5/error.h): ENOSPC, EDQUOT and
// EFBIG all mean "no room for this file", and all become ErrorCode::kNoSpace.

#include <string>
#include <string_view>

#include "h5feed/error.h"

namespace h5feed::io {

// True for the errno values that mean the file cannot grow: ENOSPC (the file system is full),
// EDQUOT (the user's quota is used up) and EFBIG (the file system's or the process's file-size
// limit, `ulimit -f`, was reached).
bool IsNoSpaceErrno(int error_number);

// The kNoSpace error for `what` (e.g. "writing chunk 12 of /images") on `path`; `detail` is
// the system's or HDF5's own text, appended for the record.
Error NoSpaceError(std::string_view what, std::string_view path, int error_number,
                   std::string_view detail);

// The error for a system call that failed with `error_number` while `what` on `path`:
// kNoSpace as above, kNotFound for ENOENT, kAlreadyExists for EEXIST, kIo otherwise.
Error SystemError(std::string_view what, std::string_view path, int error_number);

}  // namespace h5feed::io
