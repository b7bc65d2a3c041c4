#pragma once
// The classes of a file as `h5feed inspect` reports them: the class names (/classes), the
// labels dataset (/labels, integers of shape (N,) or (N, 1)) with a count of each class, how
// the labels are ordered (label_order.h), and notes on what does not add up (labels outside
// the classes, a count that is not the images'). Reads /classes and /labels whole: 8 bytes a
// row, within the limits of io/resource_limits.h. Call under hdf5::Lock().

#include <hdf5.h>

#include "summary/file_summary.h"

namespace h5feed::summary {

// Fills summary.labels, classes and label_order, and adds notes, from `file`, whose datasets
// summary.datasets lists (and whose images are summarized already). Throws Error(kCorrupt)
// when the labels or class names cannot be read or claim more rows than memory holds.
void SummarizeClasses(hid_t file, FileSummary& summary);

}  // namespace h5feed::summary
