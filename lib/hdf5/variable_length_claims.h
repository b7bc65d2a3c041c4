#pragma once
// What the rows of a variable-length dataset (a bytes or text field) claim to hold, read from
// the dataset's chunks without HDF5 converting any value: so that a field claiming more bytes
// than may be allocated is refused before anything of that size is allocated.
//
// Why not H5Dvlen_get_buf_size, or a read through a counting allocator: HDF5 1.10.8 converts
// each value through a buffer of the length its stored descriptor claims, allocated and zeroed
// (H5T__conv_vlen) before any allocator of the caller's is asked, and H5Dvlen_get_buf_size
// reads every value that way. A row claiming 4 GiB made both touch 4 GiB of memory
// (docs/hdf5.md, "Variable-length values"). The claims themselves are in the chunks: HDF5
// stores each value as its length (4 bytes, little-endian, in elements: bytes for a uint8
// sequence or a string, without a terminator) followed by the value's place in the global
// heap (the collection's address, the file's sizeof_addr bytes, and the object's index, 4
// bytes): the HDF5 file format specification, "Global Heap ID" of a variable-length datatype.
// Call under hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace h5feed::hdf5 {

struct VariableLengthClaims {
  uint64_t total = 0;       // the bytes of every row together
  uint64_t largest = 0;     // the bytes of the longest row
  int64_t largest_row = 0;  // which row that is (the first of them)
  // The bytes the rows' heap objects take in the file, as their descriptors claim them: each
  // object is a header (index, reference count and reserved: 8 bytes, then its size in the
  // file's sizeof_size bytes) and the value padded to a multiple of 8 bytes (the
  // specification's "Global Heap Object"). Rows whose descriptor points to no collection
  // (address 0) have none. The free space left in each collection (at least 4 KiB each) is
  // not counted: only walking the heap finds it.
  uint64_t heap_bytes = 0;
};

// The claims of rows [0, rows) of `dataset`, which is chunked along its one dimension and
// unfiltered (the caller checks both; the chunks then hold the descriptors as they are). Each
// chunk's stored bytes are read once (H5Dread_chunk); a chunk never written holds no values.
// Messages name the dataset `name` ("field caption") and the file `path`. Throws
// Error(kCorrupt) when a chunk's stored size is not its rows' descriptors (or would need a
// buffer larger than the rows' descriptors and 64 MiB); kIo or kCorrupt with HDF5's reason
// when a chunk cannot be located or read.
VariableLengthClaims ReadVariableLengthClaims(hid_t dataset, int64_t rows, const std::string& name,
                                              const std::string& path);

}  // namespace h5feed::hdf5
