#pragma once
// Opens an HDF5 file read-only with the file-locking policy the caller chose (h5feed/
// file_locking.h), so that every read-only open in h5feed (the index, the HDF5 block reader,
// inspect, verify) behaves the same where locks are refused or held.
//
// Call under hdf5::Lock() with errors silenced (hdf5::SilenceErrors), like every HDF5 call.

#include <cstdint>
#include <string>

#include "h5feed/error.h"
#include "h5feed/file_locking.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

struct ReadOnlyFile {
  File file;            // open; never empty when returned
  bool locked = false;  // the shared lock is held (false: opened without locking)
  // Non-empty when kAuto had to open without the lock: the warning to pass on (on_warning).
  std::string note;
  uint64_t bytes = 0;   // the file's size when opened (set by OpenHdf5File)
  std::string version;  // a remote object's version (remote::RemoteFile::version), else ""
  // Read over a network (a remote location, through remote::OpenRemoteFile): every read is a
  // request, so readers of its metadata fetch as little of it as their checks allow. Set by
  // OpenHdf5File, the one place of the metadata readers that tells local from remote.
  bool over_network = false;
};

// Opens `path` read-only. Throws Error:
//  - kIo when another process holds the file locked for writing (EWOULDBLOCK), whatever
//    `locking` is (kOff aside, which never asks): the message says a writer has it open and
//    what to do. A writer's lock is never ignored silently;
//  - kIo when `locking` is kOn and the file system refuses locks (the message names kOff);
//  - kCorrupt when HDF5 cannot read the file (truncated, not HDF5); the message carries
//    HDF5's reason.
ReadOnlyFile OpenReadOnlyFile(const std::string& path, FileLocking locking);

// True when HDF5 failed only because the file system refuses locks (errno ENOLCK, ENOSYS,
// EOPNOTSUPP in the "unable to lock file" message); the automatic fallback applies then.
bool LocksRefusedByFileSystem(int error_number);

}  // namespace h5feed::hdf5
