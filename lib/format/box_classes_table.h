#pragma once
// Reads an h5feed file's box classes' table (/box_classes, /box_class_ids: docs/format.md,
// "Masks and boxes"): what rewrites a file (rechunk, merge) keeps, and what inspect lists.

#include <string>

#include "h5feed/file_locking.h"
#include "h5feed/location.h"
#include "h5feed/writer.h"
#include "hdf5/handle.h"

namespace h5feed::format {

// The table of the open file `file` (named `path` in messages), or an empty one when it has
// none. The caller holds the HDF5 lock (hdf5/lock.h). Throws Error(kCorrupt) naming the file
// when the two datasets are unreadable or of different lengths.
BoxClasses ReadBoxClasses(hid_t file, const std::string& path);

// As above, opening the file at `location` (and taking the lock) itself.
BoxClasses ReadBoxClasses(const Location& location, FileLocking locking);

}  // namespace h5feed::format
