#pragma once
// HDF5's types for the values of fields (docs/format.md, "Fields"), each exactly the type h5py
// gives the numpy dtype, so that h5py reads a field as the array, bytes or str it is and h5feed
// reads what h5py wrote following the format:
//
//   bool     an enum of H5T_STD_I8LE {FALSE: 0, TRUE: 1}   (h5py's type for numpy bool)
//   int8 ... uint64      H5T_STD_I8LE ... H5T_STD_U64LE
//   float16  IEEE binary16, little-endian: h5py's own float type (HDF5 has none predefined):
//            sign bit 15, exponent bits 10-14 (bias 15), mantissa bits 0-9, implied leading 1
//   float32, float64     H5T_IEEE_F32LE, H5T_IEEE_F64LE
//   bytes    a variable-length sequence of H5T_STD_U8LE   (h5py.vlen_dtype(numpy.uint8))
//   text     a variable-length UTF-8 string               (h5py.string_dtype())
//
// The little-endian types are also the memory types h5feed reads and writes through: a field's
// values are little-endian in memory too (h5feed/field.h), so on a big-endian machine HDF5
// converts. Call under hdf5::Lock().

#include <hdf5.h>

#include <optional>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// The type of one element of an array field of `type`: a new type the caller owns. Throws
// Error(kInternal) when HDF5 fails (it only can when out of memory).
Datatype FieldElementType(FieldType type);

// The FieldType whose element type `type` is, in either byte order; nullopt when it is none
// of them (a compound, another float layout, an enum other than h5py's bool, ...).
std::optional<FieldType> FieldTypeOf(hid_t type);

// The extents of `rows` rows of field `spec`: (rows, *shape) for an array, (rows) otherwise.
std::vector<hsize_t> FieldDimensions(const FieldSpec& spec, int64_t rows);

// Whether `type` is stored little-endian (1-byte types are; enums follow their base type).
bool LittleEndian(hid_t type);

// A new variable-length sequence of H5T_STD_U8LE, a bytes field's type. Throws as above.
Datatype ByteSequenceType();

// Whether `type` is a variable-length sequence of unsigned 1-byte integers (bytes), a
// variable-length string (text: UTF-8, or ASCII, which is UTF-8 too).
bool IsByteSequenceType(hid_t type);
bool IsTextType(hid_t type);

}  // namespace h5feed::hdf5
