#pragma once
// The fields of an h5feed file and whether it has labels (docs/format.md, "Fields"), for its
// summary (file_summary.h): each field's kind, element type, shape and bytes, from the
// `fields` attribute and each field's dataset. A summary reports what it finds: a field whose
// metadata is not what the format says becomes a note pointing to `h5feed verify`, which
// checks every row. Call under hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include "h5feed/file_summary.h"

namespace h5feed::summary {

// Fills s.labelled and s.fields of an h5feed file (s.datasets already listed), and the
// heap_bytes of its bytes and text fields' datasets; `local` false leaves a bytes or text
// field's value_bytes, heap_bytes and stored_bytes unknown (reading its chunks of descriptors
// is a round trip each for a remote file).
void SummarizeFields(hid_t file, bool local, FileSummary& s);

}  // namespace h5feed::summary
