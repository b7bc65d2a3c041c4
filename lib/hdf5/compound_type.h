#pragma once
// Compound types: a row of named fields at fixed offsets, as h5feed's chunk table stores one
// per chunk (format/chunk_index_dataset.h); built from a list of members, and a stored type
// compared with the one expected before anything is read through it. Each function takes
// hdf5::Lock() itself.

#include <hdf5.h>

#include <cstddef>
#include <span>
#include <string>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

struct CompoundMember {
  const char* name;
  size_t offset;  // bytes from the start of the row
  hid_t type;     // integer_dataset.h's StoredIntegerType or MemoryIntegerType, say
};

// A compound type of `size` bytes holding `members`. Throws Error(kInternal) when HDF5 refuses
// them (a member past the end, or overlapping another).
Datatype CompoundType(size_t size, std::span<const CompoundMember> members);

// How the stored type of a dataset compares with the compound type expected.
struct CompoundMatch {
  bool is_compound = false;
  std::string missing_member;  // the first member of the expected type it lacks; "" for none
  bool equal = false;          // exactly the expected type: members, offsets, sizes, orders
};

// Compares the stored type of open dataset `dataset` (named `name` in messages) with
// `expected`. Throws Error (ReadFailureCode) "reading the type of NAME failed for FILE" when
// HDF5 cannot read the stored type.
CompoundMatch MatchCompound(hid_t dataset, hid_t expected, const std::string& name);

}  // namespace h5feed::hdf5
