#pragma once
// Attributes that hold a list of strings: a 1-D attribute of variable-length UTF-8 strings,
// what h5py writes for `obj.attrs[name] = numpy.array(names, dtype=h5py.string_dtype())` and
// reads back as an array of str (`.attrs[name]`). The root attribute `fields` is one
// (docs/format.md, "Fields"). Each function takes hdf5::Lock() itself and keeps HDF5 from
// printing its errors.

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace h5feed::hdf5 {

// Writes attribute `name` of `object` holding `values` (UTF-8, no NUL; at least one). Throws
// Error (kIo, or kNoSpace) naming the attribute and the file.
void WriteStringListAttribute(hid_t object, const char* name, std::span<const std::string> values);

// Reads attribute `name` of `object`: a 1-D (or scalar) attribute of strings, variable- or
// fixed-length. Throws Error kNotFound when it is absent, kCorrupt when it holds no strings,
// has another shape or more than `max_values` (checked before anything is read).
std::vector<std::string> ReadStringListAttribute(hid_t object, const char* name,
                                                 int64_t max_values);

}  // namespace h5feed::hdf5
