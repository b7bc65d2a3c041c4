#pragma once
// UTF-8 string datasets (/classes, /sources, /skipped_sources, /skipped_reasons) and the
// string-type handling shared with string attributes.
//
// Written as 1-D variable-length UTF-8 strings, h5py's type for Python str (h5py 3 returns
// them as bytes unless asked: `f["classes"].asstr()[:]`). An empty list is a dataset of shape
// (0,), never a missing one, so readers need no special case. Readers also accept fixed-length
// strings, for files others wrote. Each function takes hdf5::Lock() itself.

#include <hdf5.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// A new variable-length, NUL-terminated UTF-8 string type.
Datatype VariableLengthUtf8Type();

// Reads every string of an attribute or dataset whose stored type is `stored_type` and whose
// extent is `space`, through `read` (H5Aread or H5Dread bound to the object, given the memory
// type, a data transfer property list and the buffer). Fixed-length strings lose their NUL or
// space padding. Returns false when an HDF5 call failed, leaving the error stack for
// StackError. Dataset reads must pass `transfer` to H5Dread: its allocator lets every string
// be freed even when the read fails part-way (H5Aread takes no transfer list and ignores it).
using StringReadFunction = std::function<herr_t(hid_t memory_type, hid_t transfer, void* buffer)>;
bool ReadStrings(hid_t stored_type, hid_t space, std::vector<std::string>& values,
                 const StringReadFunction& read);

// Creates dataset `name` in `location` (a file or group) holding `values`. Strings must be
// UTF-8 without NUL bytes (a NUL ends a variable-length string). Throws Error (kIo, or
// kNoSpace when the disk is full) naming the dataset and the file.
void WriteStringDataset(hid_t location, const char* name, std::span<const std::string> values);

// Reads every string of dataset `name` in `location`, in storage order. Throws Error
// kNotFound when it does not exist, kCorrupt when it does not hold strings.
std::vector<std::string> ReadStringDataset(hid_t location, const char* name);

}  // namespace h5feed::hdf5
