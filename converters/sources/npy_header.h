#pragma once
// The header of a NumPy .npy file (format versions 1.0, 2.0 and 3.0, numpy/lib/format.py):
// the magic "\x93NUMPY", a version, a little-endian header length (2 bytes in 1.0, 4 bytes
// after), then a Python dict literal such as
//   {'descr': '<u1', 'fortran_order': False, 'shape': (60000, 32, 32, 3), }
// padded with spaces and a newline so the data starts on a 64-byte boundary.
//
// Only plain scalar dtypes are described here; structured dtypes (a list as 'descr') are refused
// with Error(kUnsupported).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sources/input_file.h"

namespace h5feed::converters {

struct NpyDtype {
  std::string descr;  // as written, e.g. "<i8", "|u1"
  char kind = 0;      // 'u' unsigned, 'i' signed, 'b' bool, 'f' float, ... (NumPy's kinds)
  int64_t item_bytes = 0;
  bool big_endian = false;  // only meaningful when item_bytes > 1

  bool is_integer() const { return kind == 'u' || kind == 'i'; }
};

struct NpyHeader {
  NpyDtype dtype;
  bool fortran_order = false;
  std::vector<int64_t> shape;  // empty for a 0-d array
  int64_t data_offset = 0;     // where the array's bytes start in the file

  int64_t elements() const;       // the product of shape (1 for a 0-d array)
  int64_t data_bytes() const;     // elements() * dtype.item_bytes
  std::string ShapeText() const;  // "(60000, 32, 32, 3)"
};

// Parses the header at the start of `file` (the whole file, or at least its header).
// `path` only names the file in messages. Throws Error(kCorrupt) when it is not a .npy file
// or its header is malformed, Error(kUnsupported) for a format version or dtype this parser
// does not know. Does not check that the data is complete: compare data_offset + data_bytes()
// with the file size.
NpyHeader ParseNpyHeader(std::span<const uint8_t> file, const std::string& path);

// The header of the .npy file `file`, read from its start: ParseNpyHeader of its preamble and
// header. Throws as ParseNpyHeader does, Error(kCorrupt) also for a header length over 1 MiB
// (damage: numpy.load refuses more than 10,000 bytes), and as InputFile::ReadAt does.
NpyHeader ReadNpyHeader(const InputFile& file);

// The integer element at `p` (of `dtype`) as int64, byte order handled. Throws
// Error(kUnsupported) for a dtype that is not an integer of 1, 2, 4 or 8 bytes, and for a
// uint64 value above INT64_MAX.
int64_t ReadNpyInteger(const uint8_t* p, const NpyDtype& dtype);

}  // namespace h5feed::converters
