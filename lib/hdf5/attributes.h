#pragma once
// Scalar attributes of any HDF5 object (file root, group, dataset): integers and UTF-8
// strings, written and read the way h5py does, so `f.attrs["layout"]` is the str "NHWC".
//
// Strings are written as scalar variable-length UTF-8 strings (h5py's type for a Python str).
// Readers accept fixed-length strings and any integer type too, for files others wrote.
// Each function takes hdf5::Lock() itself (the mutex is recursive, so callers that hold it for a
// longer sequence may call these). Failures throw Error naming the attribute, object and file;
// a read HDF5 fails is kIo when the system failed to read, else kCorrupt (ReadFailureCode:
// damaged metadata, or a file whose writer was killed before it was complete).

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace h5feed::hdf5 {

// Writes (or replaces) attribute `name` of `object`. Files written with these store int32,
// int64 and uint64 as little-endian (H5T_STD_I32LE, I64LE, U64LE) whatever the machine.
void WriteAttribute(hid_t object, const char* name, int32_t value);
void WriteAttribute(hid_t object, const char* name, int64_t value);
void WriteAttribute(hid_t object, const char* name, uint64_t value);
void WriteAttribute(hid_t object, const char* name, std::string_view value);

bool HasAttribute(hid_t object, const char* name);

// Reads an integer attribute of any integer type. Throws Error kNotFound when it is absent,
// kCorrupt when it is not one integer or its value does not fit int64 (an unsigned value of
// 2^63 or more: attribute_text.h reads any value as text).
int64_t ReadInt64Attribute(hid_t object, const char* name);

// Reads a string attribute (variable- or fixed-length, trailing NULs and padding removed).
// Throws Error kNotFound when it is absent, kCorrupt when it is not one string.
std::string ReadStringAttribute(hid_t object, const char* name);

}  // namespace h5feed::hdf5
