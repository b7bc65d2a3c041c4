// The HDF5 types of fields' values (field_types.h).

#include "hdf5/field_types.h"

#include <cstring>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

Datatype Checked(hid_t type, const char* what) {
  Datatype owned(type);
  if (!owned) throw MakeError(ErrorCode::kInternal, "HDF5 failed {}: {}", what, ErrorStackText());
  return owned;
}

// IEEE binary16 as h5py builds it (h5t.pyx): a copy of H5T_IEEE_F32LE given 16 bits, a 5-bit
// exponent biased by 15 and a 10-bit mantissa.
Datatype Float16Type() {
  Datatype type = Checked(H5Tcopy(H5T_IEEE_F32LE), "copying a float type");
  if (H5Tset_fields(type.get(), 15, 10, 5, 0, 10) < 0 || H5Tset_size(type.get(), 2) < 0 ||
      H5Tset_ebias(type.get(), 15) < 0) {
    throw MakeError(ErrorCode::kInternal, "HDF5 failed making a float16 type: {}",
                    ErrorStackText());
  }
  return type;
}

// numpy bool as h5py stores it: an enum of 1-byte integers, FALSE 0 and TRUE 1.
Datatype BoolType() {
  Datatype type = Checked(H5Tenum_create(H5T_STD_I8LE), "making a bool type");
  const int8_t values[2] = {0, 1};
  if (H5Tenum_insert(type.get(), "FALSE", &values[0]) < 0 ||
      H5Tenum_insert(type.get(), "TRUE", &values[1]) < 0) {
    throw MakeError(ErrorCode::kInternal, "HDF5 failed making a bool type: {}", ErrorStackText());
  }
  return type;
}

bool IsFloat16(hid_t type) {
  size_t sign = 0, exponent_position = 0, exponent_size = 0, mantissa_position = 0,
         mantissa_size = 0;
  if (H5Tget_fields(type, &sign, &exponent_position, &exponent_size, &mantissa_position,
                    &mantissa_size) < 0) {
    return false;
  }
  return H5Tget_precision(type) == 16 && H5Tget_offset(type) == 0 && sign == 15 &&
         exponent_position == 10 && exponent_size == 5 && mantissa_position == 0 &&
         mantissa_size == 10 && H5Tget_ebias(type) == 15 && H5Tget_norm(type) == H5T_NORM_IMPLIED;
}

// Whether `type` is an enum of 1-byte integers with exactly FALSE = 0 and TRUE = 1.
bool IsBoolEnum(hid_t type) {
  if (H5Tget_nmembers(type) != 2) return false;
  Datatype base(H5Tget_super(type));
  if (!base || H5Tget_class(base.get()) != H5T_INTEGER || H5Tget_size(base.get()) != 1) {
    return false;
  }
  for (int member = 0; member < 2; ++member) {
    char* name = H5Tget_member_name(type, static_cast<unsigned>(member));
    if (name == nullptr) return false;
    const bool expected = std::strcmp(name, member == 0 ? "FALSE" : "TRUE") == 0;
    H5free_memory(name);
    int8_t value = -1;
    if (!expected || H5Tget_member_value(type, static_cast<unsigned>(member), &value) < 0 ||
        value != member) {
      return false;
    }
  }
  return true;
}

}  // namespace

Datatype FieldElementType(FieldType type) {
  switch (type) {
    case FieldType::kBool: return BoolType();
    case FieldType::kFloat16: return Float16Type();
    default: break;
  }
  hid_t predefined = H5T_STD_U8LE;
  switch (type) {
    case FieldType::kInt8: predefined = H5T_STD_I8LE; break;
    case FieldType::kInt16: predefined = H5T_STD_I16LE; break;
    case FieldType::kInt32: predefined = H5T_STD_I32LE; break;
    case FieldType::kInt64: predefined = H5T_STD_I64LE; break;
    case FieldType::kUint8: predefined = H5T_STD_U8LE; break;
    case FieldType::kUint16: predefined = H5T_STD_U16LE; break;
    case FieldType::kUint32: predefined = H5T_STD_U32LE; break;
    case FieldType::kUint64: predefined = H5T_STD_U64LE; break;
    case FieldType::kFloat32: predefined = H5T_IEEE_F32LE; break;
    case FieldType::kFloat64: predefined = H5T_IEEE_F64LE; break;
    case FieldType::kBool:
    case FieldType::kFloat16: break;
  }
  return Checked(H5Tcopy(predefined), "copying a field type");
}

std::optional<FieldType> FieldTypeOf(hid_t type) {
  const size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
      if (H5Tget_precision(type) != 8 * size) return std::nullopt;
      switch (size) {
        case 1: return is_signed ? FieldType::kInt8 : FieldType::kUint8;
        case 2: return is_signed ? FieldType::kInt16 : FieldType::kUint16;
        case 4: return is_signed ? FieldType::kInt32 : FieldType::kUint32;
        case 8: return is_signed ? FieldType::kInt64 : FieldType::kUint64;
        default: return std::nullopt;
      }
    }
    case H5T_FLOAT:
      if (size == 2 && IsFloat16(type)) return FieldType::kFloat16;
      if (size == 4 && H5Tequal(type, H5T_IEEE_F32LE) > 0) return FieldType::kFloat32;
      if (size == 4 && H5Tequal(type, H5T_IEEE_F32BE) > 0) return FieldType::kFloat32;
      if (size == 8 && H5Tequal(type, H5T_IEEE_F64LE) > 0) return FieldType::kFloat64;
      if (size == 8 && H5Tequal(type, H5T_IEEE_F64BE) > 0) return FieldType::kFloat64;
      return std::nullopt;
    case H5T_ENUM: return IsBoolEnum(type) ? std::optional(FieldType::kBool) : std::nullopt;
    default: return std::nullopt;
  }
}

std::vector<hsize_t> FieldDimensions(const FieldSpec& spec, int64_t rows) {
  std::vector<hsize_t> dims = {static_cast<hsize_t>(rows)};
  if (StoredKind(spec) == FieldKind::kArray) {
    for (int64_t extent : spec.shape) dims.push_back(static_cast<hsize_t>(extent));
  }
  return dims;
}

bool LittleEndian(hid_t type) {
  if (H5Tget_size(type) <= 1) return true;
  if (H5Tget_class(type) == H5T_ENUM) {
    Datatype base(H5Tget_super(type));
    return base && LittleEndian(base.get());
  }
  return H5Tget_order(type) == H5T_ORDER_LE;
}

Datatype ByteSequenceType() { return Checked(H5Tvlen_create(H5T_STD_U8LE), "making a bytes type"); }

bool IsByteSequenceType(hid_t type) {
  if (H5Tget_class(type) != H5T_VLEN) return false;
  Datatype base(H5Tget_super(type));
  return base && H5Tget_class(base.get()) == H5T_INTEGER && H5Tget_size(base.get()) == 1 &&
         H5Tget_sign(base.get()) == H5T_SGN_NONE;
}

bool IsTextType(hid_t type) {
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) <= 0) return false;
  const H5T_cset_t cset = H5Tget_cset(type);
  return cset == H5T_CSET_UTF8 || cset == H5T_CSET_ASCII;
}

}  // namespace h5feed::hdf5
