#pragma once
// Reads an h5feed file's skipped lists (/skipped_sources, /skipped_reasons: docs/format.md,
// "Contents of a file"): the inputs its conversion skipped, which merge gathers from its parts
// and rechunk carries into the file it writes.

#include <string>
#include <vector>

#include "h5feed/file_locking.h"
#include "h5feed/location.h"
#include "h5feed/skipped_source.h"
#include "hdf5/handle.h"

namespace h5feed::format {

// The lists of the open file `file` (named `path` in messages), in the order written; empty
// when it has none. The caller holds the HDF5 lock (hdf5/lock.h). Throws Error(kCorrupt) naming
// the file when only one list is there, either is unreadable, or their lengths differ.
std::vector<SkippedSource> ReadSkippedLists(hid_t file, const std::string& path);

// As above, opening the file at `location` (and taking the lock) itself.
std::vector<SkippedSource> ReadSkippedLists(const Location& location, FileLocking locking);

}  // namespace h5feed::format
