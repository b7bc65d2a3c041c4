#pragma once
// What a field's row must be (docs/format.md, "Fields"): an array row exactly row_bytes long,
// each bool element 0 or 1; a bytes or text row at most kMaxFieldRowBytes; a text row valid
// UTF-8 without a NUL byte (a NUL would end HDF5's variable-length string, and h5py's str,
// early). The Writer refuses a
// column that breaks them (kInvalidArgument) and a reader treats one as damage (kCorrupt); both
// say it in the same words. Stateless; thread-safe.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "h5feed/error.h"
#include "h5feed/field.h"

namespace h5feed {

// A bytes or text row's limit, an array row's as well (CheckFieldSpec): far past any caption or
// record, and below HDF5's 32-bit length of a variable-length value.
inline constexpr int64_t kMaxFieldRowBytes = int64_t{1} << 31;

// "" when `row` is a valid value of `spec`, else what is wrong with it: "is 12 bytes, not the
// 40 of uint8[40]", "holds 2 at element 4; a bool is 0 or 1", "is not valid UTF-8 (byte 7)",
// "holds a NUL byte (byte 3)".
std::string FieldRowProblem(const FieldSpec& spec, std::span<const uint8_t> row);

// Throws Error(code) for the first row of `column` with a problem: "row 1212 of field caption
// (text) in WHERE is not valid UTF-8 (byte 7)", rows counted from `first_row` (the file's row
// of the column's first). `where` names the file.
void CheckFieldColumn(const FieldSpec& spec, const FieldColumn& column, int64_t first_row,
                      ErrorCode code, std::string_view where);

// Throws Error(code) for the first row where a box_labels or box_values column of `specs` holds
// another number of values than its boxes column (same position in `specs` and `columns`) has
// boxes, but those of `left_out` (the file's rows, ascending: damaged rows a reader never
// delivers).
void CheckPerBoxValueCounts(std::span<const FieldSpec> specs, std::span<const FieldColumn> columns,
                            int64_t first_row, ErrorCode code, std::string_view where,
                            std::span<const int64_t> left_out = {});

}  // namespace h5feed
