#pragma once
// Names for HDF5 datatypes and filters as h5feed's messages and `h5feed inspect` show them,
// in numpy's and h5py's words: "uint8", "int16 (big-endian)", "float32", "string",
// "string[8]"; "gzip:4", "zstd:3", "shuffle", "lzf". Call under hdf5::Lock().

#include <hdf5.h>

#include <span>
#include <string>

namespace h5feed::hdf5 {

// The name of datatype `type`: "uint8", "int64", "int16 (big-endian)" (a multi-byte integer
// stored big-endian), "float32", "string" (variable length), "string[8]" (fixed length),
// "compound", "enum", "array", "vlen", "opaque", "reference", "bitfield" or "unknown".
std::string TypeName(hid_t type);

// The name of HDF5 filter `id` with its client values: "gzip:6" and "zstd:3" (with the level
// when given), "shuffle", "fletcher32", "szip", "nbit", "scaleoffset", the registered filters
// h5py users meet ("lzf", "blosc", "lz4", "bitshuffle"), else "NAME (filter ID)" with the
// name the file gives (`stored_name`, may be empty) or "filter ID".
std::string FilterName(int id, std::span<const unsigned> values, const char* stored_name = "");

}  // namespace h5feed::hdf5
