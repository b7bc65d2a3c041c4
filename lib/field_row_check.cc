// FieldRowProblem and CheckFieldColumn (field_row_check.h).

#include "field_row_check.h"

#include <algorithm>

#include "make_error.h"
#include "utf8.h"

namespace h5feed {

std::string FieldRowProblem(const FieldSpec& spec, std::span<const uint8_t> row) {
  if (StoredKind(spec) == FieldKind::kArray) {
    const int64_t expected = spec.row_bytes();
    if (static_cast<int64_t>(row.size()) != expected) {
      return fmt::format("is {} bytes, not the {} of {}", row.size(), expected, spec.Describe());
    }
    if (spec.type != FieldType::kBool) return {};
    for (size_t i = 0; i < row.size(); ++i) {
      // Stored as h5py's enum of FALSE = 0 and TRUE = 1, which names no other value.
      if (row[i] > 1) return fmt::format("holds {} at element {}; a bool is 0 or 1", row[i], i);
    }
    return {};
  }
  if (static_cast<int64_t>(row.size()) > kMaxFieldRowBytes) {
    return fmt::format("is {} bytes, more than a row may hold ({})", row.size(), kMaxFieldRowBytes);
  }
  // Boxes are 16 bytes each (4 float32), a box's label or value its element's, a mask's values
  // 1 or 2.
  const size_t unit = spec.kind == FieldKind::kMask ? ElementBytes(spec.type)
                      : BoxValueBytes(spec) > 0     ? BoxValueBytes(spec)
                                                    : 1;
  if (row.size() % unit != 0) {
    return fmt::format("is {} bytes, not a whole number of {}-byte {}", row.size(), unit,
                       spec.kind == FieldKind::kMask ? "values" : "boxes or per-box values");
  }
  if (spec.kind != FieldKind::kText) return {};
  for (size_t i = 0; i < row.size();) {
    if (row[i] == 0) return fmt::format("holds a NUL byte (byte {})", i);
    const size_t length = Utf8SequenceLength(row, i);
    if (length == 0) return fmt::format("is not valid UTF-8 (byte {})", i);
    i += length;
  }
  return {};
}

void CheckFieldColumn(const FieldSpec& spec, const FieldColumn& column, int64_t first_row,
                      ErrorCode code, std::string_view where) {
  for (int64_t r = 0; r < column.rows(); ++r) {
    const std::string problem = FieldRowProblem(spec, column.row(r));
    if (problem.empty()) continue;
    throw MakeError(code, "row {} of field {} ({}) in {} {}", first_row + r, spec.name,
                    spec.Describe(), where, problem);
  }
}

void CheckPerBoxValueCounts(std::span<const FieldSpec> specs, std::span<const FieldColumn> columns,
                            int64_t first_row, ErrorCode code, std::string_view where,
                            std::span<const int64_t> left_out) {
  for (size_t f = 0; f < specs.size(); ++f) {
    if (!IsPerBox(specs[f].kind)) continue;
    const size_t value_bytes = BoxValueBytes(specs[f]);
    for (size_t b = 0; b < specs.size(); ++b) {
      if (specs[b].name != specs[f].boxes || specs[b].kind != FieldKind::kBoxes) continue;
      for (int64_t r = 0; r < columns[f].rows(); ++r) {
        const size_t values = columns[f].row(r).size() / value_bytes;
        const size_t boxes = columns[b].row(r).size() / BoxValueBytes(specs[b]);
        if (values == boxes ||
            std::binary_search(left_out.begin(), left_out.end(), first_row + r)) {
          continue;
        }
        throw MakeError(code, "row {} of field {} in {} has {} {} for the {} boxes of field {}",
                        first_row + r, specs[f].name, where, values,
                        specs[f].kind == FieldKind::kBoxLabels ? "labels" : "values", boxes,
                        specs[b].name);
      }
    }
  }
}

}  // namespace h5feed
