#pragma once
// Fields for tests of the Writer and the readers (docs/format.md, "Fields"): an array field of
// every FieldType, a bytes and a text field, each row's value a pure function of its row, so
// that a test of any language (test_h5py_reads_fields.py has the same functions in numpy)
// knows what every row must hold.
//
//   array field "a_<type>" of shape kShapes[type]: element e of row n is
//     v = (31 n + 7 e + 3) mod 97, then: bool v mod 2; signed integers v - 48 (64-bit: times
//     0x0101010101010101); unsigned v (64-bit: times 0x0101010101010101); floats (v - 48) / 4
//     (exact in float16);
//   bytes field "blob": n mod 7 bytes, byte i = (n + i) mod 256 (rows 0, 7, ... are empty);
//   text field "caption": "" for n mod 5 == 0, else "caption {n} é✓".

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "h5feed/field.h"

namespace h5feed::testing {

struct ArrayFieldCase {
  FieldType type;
  std::vector<int64_t> shape;
};

inline const std::vector<ArrayFieldCase>& ArrayFieldCases() {
  static const std::vector<ArrayFieldCase> cases = {
      {FieldType::kBool, {5}},      {FieldType::kInt8, {2, 3}},    {FieldType::kInt16, {3}},
      {FieldType::kInt32, {}},      {FieldType::kInt64, {2}},      {FieldType::kUint8, {40}},
      {FieldType::kUint16, {2, 2}}, {FieldType::kUint32, {1}},     {FieldType::kUint64, {3}},
      {FieldType::kFloat16, {4}},   {FieldType::kFloat32, {5, 2}}, {FieldType::kFloat64, {2}},
  };
  return cases;
}

// Every test field, in the order a test writes them: the arrays, "blob", "caption".
inline std::vector<FieldSpec> TestFieldSpecs() {
  std::vector<FieldSpec> specs;
  for (const ArrayFieldCase& c : ArrayFieldCases()) {
    specs.push_back({"a_" + std::string(ToString(c.type)), FieldKind::kArray, c.type, c.shape, {}});
  }
  specs.push_back({"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}});
  specs.push_back({"caption", FieldKind::kText, FieldType::kUint8, {}, {}});
  return specs;
}

// float32 `value` (a multiple of 1/4 within [-12, 12.25]) as IEEE binary16 bits.
inline uint16_t HalfBits(float value) {
  if (value == 0.0f) return std::signbit(value) ? 0x8000 : 0;
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000;
  const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  const uint32_t mantissa = (bits >> 13) & 0x3FF;  // exact for these values
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | mantissa);
}

template <typename T>
void AppendLittleEndian(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// Row `n` of field `spec` (one of TestFieldSpecs) as its stored bytes.
inline std::vector<uint8_t> TestFieldRow(const FieldSpec& spec, int64_t n) {
  std::vector<uint8_t> row;
  if (spec.kind == FieldKind::kBytes) {
    for (int64_t i = 0; i < n % 7; ++i) row.push_back(static_cast<uint8_t>((n + i) % 256));
    return row;
  }
  if (spec.kind == FieldKind::kText) {
    const std::string text = n % 5 == 0 ? "" : "caption " + std::to_string(n) + " é✓";
    return std::vector<uint8_t>(text.begin(), text.end());
  }
  int64_t elements = 1;
  for (int64_t d : spec.shape) elements *= d;
  constexpr uint64_t kRepeat = 0x0101010101010101ULL;
  for (int64_t e = 0; e < elements; ++e) {
    const int64_t v = (31 * n + 7 * e + 3) % 97;
    switch (spec.type) {
      case FieldType::kBool: row.push_back(static_cast<uint8_t>(v % 2)); break;
      case FieldType::kInt8: AppendLittleEndian(row, static_cast<int8_t>(v - 48)); break;
      case FieldType::kInt16: AppendLittleEndian(row, static_cast<int16_t>(v - 48)); break;
      case FieldType::kInt32: AppendLittleEndian(row, static_cast<int32_t>(v - 48)); break;
      case FieldType::kInt64:
        AppendLittleEndian(row, static_cast<int64_t>((v - 48) * static_cast<int64_t>(kRepeat)));
        break;
      case FieldType::kUint8: AppendLittleEndian(row, static_cast<uint8_t>(v)); break;
      case FieldType::kUint16: AppendLittleEndian(row, static_cast<uint16_t>(v)); break;
      case FieldType::kUint32: AppendLittleEndian(row, static_cast<uint32_t>(v)); break;
      case FieldType::kUint64: AppendLittleEndian(row, static_cast<uint64_t>(v) * kRepeat); break;
      case FieldType::kFloat16:
        AppendLittleEndian(row, HalfBits(static_cast<float>(v - 48) / 4.0f));
        break;
      case FieldType::kFloat32: AppendLittleEndian(row, static_cast<float>(v - 48) / 4.0f); break;
      case FieldType::kFloat64: AppendLittleEndian(row, static_cast<double>(v - 48) / 4.0); break;
    }
  }
  return row;
}

// Rows [first, first + count) of every field of `specs`, one column each.
inline std::vector<FieldColumn> TestFieldColumns(const std::vector<FieldSpec>& specs, int64_t first,
                                                 int64_t count) {
  std::vector<FieldColumn> columns(specs.size());
  for (size_t f = 0; f < specs.size(); ++f) {
    for (int64_t n = first; n < first + count; ++n) columns[f].Append(TestFieldRow(specs[f], n));
  }
  return columns;
}

}  // namespace h5feed::testing
