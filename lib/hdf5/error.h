#pragma once
// HDF5's error stack turned into h5feed::Error, and HDF5's automatic error printing turned off.
//
// HDF5 records why a call failed on a per-thread error stack and, by default, prints that stack
// to stderr from inside the failing call. h5feed never prints and continues: it turns the stack
// into the message of the Error it throws. The stack is cleared by the next HDF5 API call, so
// build the Error right after the call that failed, before any other HDF5 call (StackError
// does this first). Call these under hdf5::Lock(), like every HDF5 call.

#include <hdf5.h>

#include <string>
#include <string_view>

#include "h5feed/error.h"

namespace h5feed::hdf5 {

// This thread's HDF5 error stack on one line, the failing API call first and the innermost
// cause last: "H5Dwrite_chunk(): can't write chunk; ...; H5FD_sec2_write(): file write failed:
// ... errno = 28, error message = 'No space left on device' ...". Empty when the stack is.
std::string ErrorStackText();

// The errno HDF5 recorded in this thread's stack ("errno = N" in a file-driver message), or 0.
int ErrorStackErrno();

// The code for a failed read: kIo when this thread's error stack records an errno (the system
// failed to read), else kCorrupt (HDF5 found the file's contents damaged: a bad B-tree node, a
// filter that failed).
ErrorCode ReadFailureCode();

// The Error for a failed HDF5 call. `what` says what failed ("writing chunk 3 of /images"),
// `file` where. When the stack records ENOSPC, EDQUOT or EFBIG the code is kNoSpace and the
// message says the disk is full and what to do (io/os_error.h); when the call failed on a
// remote read (range_driver.h), the code and message are that read's; otherwise the code is
// `code`.
// The HDF5 stack is appended to the message for the record.
Error StackError(ErrorCode code, std::string_view what, std::string_view file);
// The same, naming the file that holds `object` (any file, group, dataset or attribute id).
Error StackError(ErrorCode code, std::string_view what, hid_t object);

// The name of the file that holds `object` (H5Fget_name), or "<unknown file>".
std::string FileName(hid_t object);

// "dataset /<name> in <file>", the file being the one that holds `location`: how messages
// name a dataset of h5feed's schema.
std::string DatasetWhere(hid_t location, std::string_view name);

// Keeps a failure's error stack past the closing of handles: every HDF5 API call, H5Sclose
// and H5Pclose included, clears this thread's stack as it starts. Declare it before the handles
// of a function that returns false on failure, and call Keep() at the failure: once those
// handles are closed, its destructor puts the failure's stack back for the caller's StackError.
class KeepErrorStack {
 public:
  KeepErrorStack() = default;
  ~KeepErrorStack();
  KeepErrorStack(const KeepErrorStack&) = delete;
  KeepErrorStack& operator=(const KeepErrorStack&) = delete;

  void Keep();

 private:
  hid_t kept_ = H5I_INVALID_HID;
};

// Scope guard: no automatic error printing on this thread while it lives; the previous
// setting is restored on destruction. Cheap (two calls that touch per-thread state only).
class SilenceErrors {
 public:
  SilenceErrors();
  ~SilenceErrors();
  SilenceErrors(const SilenceErrors&) = delete;
  SilenceErrors& operator=(const SilenceErrors&) = delete;

 private:
  H5E_auto2_t saved_function_ = nullptr;
  void* saved_data_ = nullptr;
};

}  // namespace h5feed::hdf5
