// NpyFields (npy_fields.h).

#include "sources/npy_fields.h"

#include <algorithm>
#include <optional>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// The element type of a numeric dtype ("b1", "i4", "f2", ...), or nullopt.
std::optional<FieldType> ElementType(const NpyDtype& dtype) {
  const int64_t n = dtype.item_bytes;
  switch (dtype.kind) {
    case 'b':
      if (n == 1) return FieldType::kBool;
      break;
    case 'i':
      if (n == 1) return FieldType::kInt8;
      if (n == 2) return FieldType::kInt16;
      if (n == 4) return FieldType::kInt32;
      if (n == 8) return FieldType::kInt64;
      break;
    case 'u':
      if (n == 1) return FieldType::kUint8;
      if (n == 2) return FieldType::kUint16;
      if (n == 4) return FieldType::kUint32;
      if (n == 8) return FieldType::kUint64;
      break;
    case 'f':
      if (n == 2) return FieldType::kFloat16;
      if (n == 4) return FieldType::kFloat32;
      if (n == 8) return FieldType::kFloat64;
      break;
    default: break;
  }
  return std::nullopt;
}

// Appends code point `c` as UTF-8; one that is none (a surrogate, above U+10FFFF) as a byte
// that is never UTF-8, which the conversion then refuses naming the row.
void AppendUtf8(uint32_t c, std::vector<uint8_t>& out) {
  if (c < 0x80) {
    out.push_back(static_cast<uint8_t>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<uint8_t>(0xC0 | (c >> 6)));
    out.push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000 && !(c >= 0xD800 && c <= 0xDFFF)) {
    out.push_back(static_cast<uint8_t>(0xE0 | (c >> 12)));
    out.push_back(static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else if (c >= 0x10000 && c <= 0x10FFFF) {
    out.push_back(static_cast<uint8_t>(0xF0 | (c >> 18)));
    out.push_back(static_cast<uint8_t>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(0xFF);
  }
}

uint32_t CodePoint(const uint8_t* p, bool big_endian) {
  return big_endian ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
                    : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
}

}  // namespace

NpyFields::NpyFields(const std::vector<NpyFieldFile>& files, int64_t rows) {
  for (const NpyFieldFile& given : files) {
    FieldSpec spec;
    spec.name = given.name;
    for (const FieldSpec& earlier : specs_) {
      if (earlier.name == spec.name) {
        throw MakeError(ErrorCode::kInvalidArgument, "field {} is given twice", spec.name);
      }
    }
    Field field{InputFile(given.path), {}, 0, 0};
    field.header = ReadNpyHeader(field.file);
    const NpyHeader& header = field.header;
    const NpyDtype& dtype = header.dtype;
    const std::vector<int64_t>& s = header.shape;
    if (header.fortran_order) {
      throw MakeError(ErrorCode::kUnsupported,
                      "{} (field {}) is stored in Fortran order; save "
                      "numpy.ascontiguousarray(a) instead",
                      given.path, spec.name);
    }
    if (s.empty() || s[0] != rows) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} (field {}) has shape {}; a field holds one row per image: its first "
                      "dimension must be {}",
                      given.path, spec.name, header.ShapeText(), rows);
    }
    field.item_bytes = dtype.item_bytes;
    if (const std::optional<FieldType> type = ElementType(dtype)) {
      spec.kind = FieldKind::kArray;
      spec.type = *type;
      spec.shape.assign(s.begin() + 1, s.end());
    } else if ((dtype.kind == 'S' || dtype.kind == 'U') && s.size() == 1 && dtype.item_bytes > 0) {
      spec.kind = dtype.kind == 'S' ? FieldKind::kBytes : FieldKind::kText;
      if (dtype.kind == 'U') field.item_bytes = 4 * dtype.item_bytes;  // "<U10": 10 UTF-32 units
    } else {
      throw MakeError(ErrorCode::kUnsupported,
                      "{} (field {}) holds {} {}; a field is a numeric array (bool, int8-64, "
                      "uint8-64, float16/32/64) of shape (N, ...), or (N,) byte strings "
                      "(numpy \"S\") or str (numpy \"U\")",
                      given.path, spec.name, dtype.descr, header.ShapeText());
    }
    CheckFieldSpec(spec);
    field.row_bytes = field.item_bytes;
    for (size_t d = 1; d < s.size(); ++d) field.row_bytes *= s[d];
    const int64_t needed = header.data_offset + rows * field.row_bytes;
    if (static_cast<int64_t>(field.file.size()) < needed) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{} is truncated: its header announces {} {} ({} bytes) but the file has "
                      "{} bytes",
                      given.path, dtype.descr, header.ShapeText(), needed, field.file.size());
    }
    specs_.push_back(std::move(spec));
    fields_.push_back(std::move(field));
  }
}

std::vector<std::vector<uint8_t>> NpyFields::Read(int64_t row) const {
  std::vector<std::vector<uint8_t>> values(fields_.size());
  for (size_t f = 0; f < fields_.size(); ++f) {
    const Field& field = fields_[f];
    std::vector<uint8_t> stored(static_cast<size_t>(field.row_bytes));
    field.file.ReadAt(static_cast<uint64_t>(field.header.data_offset + row * field.row_bytes),
                      stored);
    const uint8_t* begin = stored.data();
    const uint8_t* end = begin + stored.size();
    std::vector<uint8_t>& value = values[f];
    const NpyDtype& dtype = field.header.dtype;
    switch (specs_[f].kind) {
      case FieldKind::kArray:
        value = std::move(stored);
        if (dtype.big_endian && field.item_bytes > 1) {
          const size_t n = static_cast<size_t>(field.item_bytes);
          for (size_t e = 0; e < value.size(); e += n) {
            std::reverse(value.begin() + static_cast<std::ptrdiff_t>(e),
                         value.begin() + static_cast<std::ptrdiff_t>(e + n));
          }
        }
        break;
      case FieldKind::kBytes:
        while (end > begin && end[-1] == 0) --end;
        value.assign(begin, end);
        break;
      case FieldKind::kText:
        while (end > begin && CodePoint(end - 4, dtype.big_endian) == 0) end -= 4;
        for (const uint8_t* p = begin; p < end; p += 4) {
          AppendUtf8(CodePoint(p, dtype.big_endian), value);
        }
        break;
      case FieldKind::kMask:
      case FieldKind::kBoxes:
      case FieldKind::kBoxLabels:
      case FieldKind::kBoxValues: break;  // an .npy field is an array, bytes or text
    }
  }
  return values;
}

}  // namespace h5feed::converters
