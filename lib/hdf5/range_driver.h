#pragma once
// An HDF5 virtual file driver (VFD) that reads through an io::RandomAccessFile: HDF5 opens a
// remote file (HttpFile) as if it were local, for its metadata (geometry, labels, classes,
// the stored chunk table). HDF5's small serial metadata reads, each a round trip over a
// network, are served from blocks of kBlockBytes read whole and kept while the file is open,
// so an open costs a few round trips instead of one per read (docs/remote.md has the counts);
// reads of kBlockBytes or more (a dataset's data) go to the file directly. Read-only.
//
// A read the file refuses (a network error, a changed object) fails the HDF5 call, and
// TakeDriverError() on the same thread returns that Error, which hdf5::StackError reports in
// place of HDF5's vaguer stack (error.h).
//
// Thread-safety: like every HDF5 call, under hdf5::Lock() (the driver's callbacks run inside
// HDF5 calls, on the calling thread).

#include <memory>
#include <optional>

#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "io/random_access_file.h"

namespace h5feed::hdf5 {

inline constexpr uint64_t kBlockBytes = 256 << 10;

// A file access property list whose H5Fopen reads `file` (the name passed to H5Fopen is only
// what HDF5 reports). The list and every file opened with it share `file` until closed.
// Throws Error(kInternal) when HDF5 refuses the driver.
PropertyList RangeDriverAccess(std::shared_ptr<const io::RandomAccessFile> file);

// The Error of the last read the driver failed on this thread, once (then cleared).
std::optional<Error> TakeDriverError();

}  // namespace h5feed::hdf5
