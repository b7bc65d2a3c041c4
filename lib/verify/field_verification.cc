// CheckFields (field_verification.h).

#include "verify/field_verification.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "field_row_check.h"
#include "h5feed/error.h"
#include "index/field_chunk_index.h"
#include "index/field_values.h"

namespace h5feed::verify {
namespace {

// Every row of every array field's stored chunk table (/field_chunk_index) against HDF5's own
// chunk index, as the metadata check compares /chunk_index's: a table that differs (the file
// was rewritten after conversion) is a problem naming the field and the first chunk.
void CheckFieldChunkTables(const index::DatasetIndex& index, VerificationReport& report) {
  int64_t rows = 0;
  std::string checked;
  for (const FieldSpec& spec : index.fields) {
    try {
      const std::optional<index::DatasetIndex> field =
          index::FieldChunkIndex(index, spec, std::numeric_limits<int>::max());
      if (!field || field->read_path != index::ReadPath::kStoredTable) continue;
      rows += field->chunk_count();
      checked += (checked.empty() ? "" : ", ") + spec.name;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt && e.code() != ErrorCode::kNotFound &&
          e.code() != ErrorCode::kUnsupported) {
        throw;
      }
      report.problems.push_back("field " + spec.name + ": " + e.what());
    }
  }
  if (!checked.empty()) {
    report.checked.push_back("field chunk tables of " + checked + ": " + std::to_string(rows) +
                             " rows against HDF5's own chunk index");
  }
}

// The most bytes of a boxes field and one of its box labels or values read together: a loader
// holds both whole, and so does this check; past it, a problem says they went unchecked.
constexpr uint64_t kMaxPerBoxBytes = uint64_t{4} << 30;

// Each box labels or values field's rows against its boxes' counts, as a loader checks them at
// open: a row of another count is damage, which a reader refuses.
void CheckPerBoxCounts(const index::DatasetIndex& index, VerificationReport& report) {
  std::string checked;
  for (const FieldSpec& spec : index.fields) {
    if (!IsPerBox(spec.kind)) continue;
    const auto boxes = std::find_if(index.fields.begin(), index.fields.end(),
                                    [&](const FieldSpec& f) { return f.name == spec.boxes; });
    if (boxes == index.fields.end() || boxes->kind != FieldKind::kBoxes) {
      report.problems.push_back("field " + spec.name + " (" + spec.Describe() +
                                ") names no boxes field of the file: the file is damaged");
      continue;
    }
    std::vector<FieldColumn> columns;
    try {
      columns.push_back(index::ReadFieldColumn(index, boxes->name, kMaxPerBoxBytes));
      columns.push_back(index::ReadFieldColumn(index, spec.name, kMaxPerBoxBytes));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kInvalidArgument) {  // beyond kMaxPerBoxBytes
        report.problems.push_back("field " + spec.name + ": not checked one per box: " + e.what());
        continue;
      }
      // A row that failed its own check is a problem CheckFields reports already.
      if (e.code() == ErrorCode::kCorrupt || e.code() == ErrorCode::kNotFound) continue;
      throw;
    }
    try {
      const std::vector<FieldSpec> specs = {*boxes, spec};
      CheckPerBoxValueCounts(specs, columns, 0, ErrorCode::kCorrupt, index.path);
      checked += (checked.empty() ? "" : ", ") + spec.name;
    } catch (const Error& e) {
      report.problems.push_back(e.what());
    }
  }
  if (!checked.empty()) {
    report.checked.push_back("box labels and values: every row of " + checked +
                             " one per box of its boxes");
  }
}

}  // namespace

void CheckFields(const index::DatasetIndex& index, VerificationReport& report) {
  if (index.fields.empty()) return;
  std::string checked;
  for (const FieldSpec& spec : index.fields) {
    const std::string described = spec.name + " (" + spec.Describe() + ")";
    try {
      // A block of rows at a time: a field of any size is checked in the memory of a block.
      index::CheckFieldColumn(index, spec.name);
      checked += (checked.empty() ? "" : ", ") + described;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kCorrupt || e.code() == ErrorCode::kNotFound) {
        report.problems.push_back(e.what());
      } else {
        throw;
      }
    }
  }
  if (!checked.empty()) {
    report.checked.push_back("fields: every row of " + checked +
                             " against its checksum and its field's kind");
  }
  CheckPerBoxCounts(index, report);
  CheckFieldChunkTables(index, report);
}

}  // namespace h5feed::verify
