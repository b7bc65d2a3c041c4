#pragma once
// What `h5feed verify` checks of a file besides its chunks (h5feed/verify.h): for h5feed files
// the stored chunk table against HDF5's own chunk index, every row, and the format attributes
// against /images, the counts and (own-size files) every image's record; for every file the
// labels against the classes. Each problem found goes into the report, whose `checked` and
// `not_checked` say what was looked at.
//
// Stateless functions. CheckH5feedMetadata takes hdf5::Lock() itself; the lookups it makes are
// serial (HDF5 1.10.8 runs one call at a time anyway).

#include "h5feed/file_locking.h"
#include "h5feed/verify.h"
#include "index/dataset_index.h"

namespace h5feed::verify {

// The table against HDF5's chunk index, every row (a mismatch is a bad chunk, ChunkProblemAt);
// the attributes and the string lists against the counts. h5feed files only. Throws
// Error(kCorrupt) when the file has no /images to compare with.
void CheckH5feedMetadata(const index::DatasetIndex& index, FileLocking locking,
                         VerificationReport& report);

// Each of report.bad_images named by its row of /sources (ImageProblem::source), where the
// file has as many sources as images; h5feed files only (others have no /sources). Takes
// hdf5::Lock() itself. A /sources that cannot be read leaves the sources empty: CheckCount
// reports it.
void NameBadImageSources(const index::DatasetIndex& index, FileLocking locking,
                         VerificationReport& report);

// Every label in [0, classes): the first bad ones listed by row, the rest counted.
void CheckLabels(const index::DatasetIndex& index, VerificationReport& report);

}  // namespace h5feed::verify
