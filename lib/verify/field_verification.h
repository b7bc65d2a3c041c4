#pragma once
// What `h5feed verify` checks of a file's fields (docs/format.md, "Fields"): every row of every
// field read and checked as a reader checks it (index/field_values.h): against its checksum,
// a bool element 0 or 1, a text row UTF-8, no row claiming more than a row may hold; each box
// labels or values row's count against its boxes'; and each array field's chunk table against
// HDF5's chunk index. The
// field's metadata was checked when the file was indexed (a field that fails there leaves the
// file unindexed, with the reason among the report's problems).
//
// Stateless; takes hdf5::Lock() as it reads.

#include "h5feed/verify.h"
#include "index/dataset_index.h"

namespace h5feed::verify {

// Checks every field of `index`, a block of rows at a time (index::CheckFieldColumn: the
// memory of a block, whatever the field's size): a damaged one adds a problem naming the field
// and its first bad row and chunk.
void CheckFields(const index::DatasetIndex& index, VerificationReport& report);

}  // namespace h5feed::verify
