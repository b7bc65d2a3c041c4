#pragma once
// NumPy arrays carried as fields of `h5feed convert npy` (`--field NAME=FILE.npy`;
// docs/format.md, "Fields"): row i of each array is image i's value.
//
// An array of shape (N, ...) of a numeric dtype (bool, int8-64, uint8-64, float16/32/64, either
// byte order) is an array field of shape dims[1:] (an (N,) array a scalar); an (N,) array of
// byte strings (numpy "S") a bytes field, of str (numpy "U") a text field, each value without
// numpy's trailing NUL padding, as numpy gives it. Each file is read a row at a time, never loaded
// whole.
//
// Thread-safety: immutable after construction; Read() may be called from many threads.

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "sources/input_file.h"
#include "sources/npy_header.h"

namespace h5feed::converters {

// A field of a NumPy source: its name and the .npy file holding its values.
struct NpyFieldFile {
  std::string name;
  std::string path;
};

class NpyFields {
 public:
  // Opens and checks `files` for `rows` images. Throws Error: kInvalidArgument for a name
  // CheckFieldSpec refuses or given twice, an array whose first dimension is not `rows`;
  // kUnsupported for a dtype, rank or order that is no field's (saying how to convert it);
  // kNotFound, kCorrupt as opening an .npy file throws (a missing, malformed or short file).
  NpyFields(const std::vector<NpyFieldFile>& files, int64_t rows);

  const std::vector<FieldSpec>& specs() const { return specs_; }

  // Row `row`'s value of every field, in specs() order (SampleInfo::fields).
  std::vector<std::vector<uint8_t>> Read(int64_t row) const;

 private:
  struct Field {
    InputFile file;
    NpyHeader header;
    int64_t item_bytes = 0;  // of one element as stored ("U": 4 bytes a character)
    int64_t row_bytes = 0;   // of one row as stored
  };

  std::vector<FieldSpec> specs_;
  std::vector<Field> fields_;  // one per spec
};

}  // namespace h5feed::converters
