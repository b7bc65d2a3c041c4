// CheckFields (field_verification.h).

#include "verify/field_verification.h"

#include <limits>
#include <optional>
#include <string>

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
  CheckFieldChunkTables(index, report);
}

}  // namespace h5feed::verify
