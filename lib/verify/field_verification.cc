// CheckFields (field_verification.h).

#include "verify/field_verification.h"

#include <string>

#include "h5feed/error.h"
#include "index/field_values.h"
#include "io/resource_limits.h"

namespace h5feed::verify {

void CheckFields(const index::DatasetIndex& index, VerificationReport& report) {
  if (index.fields.empty()) return;
  // A field is read whole; the rest of the machine's memory stays for the chunks' check.
  const uint64_t max_bytes = io::limits::PhysicalMemoryBytes() / 4;
  std::string checked;
  for (const FieldSpec& spec : index.fields) {
    const std::string described = spec.name + " (" + spec.Describe() + ")";
    try {
      index::ReadFieldColumn(index, spec.name, max_bytes,
                             "verify reads a field whole: it is left unchecked here");
      checked += (checked.empty() ? "" : ", ") + described;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kInvalidArgument) {
        report.not_checked.push_back("field " + described + ": " + e.what());
      } else if (e.code() == ErrorCode::kCorrupt || e.code() == ErrorCode::kNotFound) {
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
}

}  // namespace h5feed::verify
