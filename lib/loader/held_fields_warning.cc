// HeldFieldsWarning (held_fields_warning.h).

#include "loader/held_fields_warning.h"

#include <fmt/format.h>

#include "byte_size.h"
#include "index/field_values.h"
#include "loader/options_check.h"

namespace h5feed::loader {

std::optional<std::string> HeldFieldsWarning(const LoaderOptions& options,
                                             const BatchFields& fields, uint64_t limit) {
  uint64_t held = 0;
  std::string unstreamable;  // the held fields that streaming could not have left out
  int unstreamable_count = 0;
  for (const BatchField& field : fields.fields) {
    if (!field.column) continue;  // streamed
    const uint64_t bytes =
        index::FieldColumnBytes(field.column->rows(), field.column->data().size());
    held += bytes;
    if (field.spec.kind != FieldKind::kArray) {
      unstreamable += fmt::format("{}{} ({}, {})", unstreamable.empty() ? "" : ", ",
                                  field.spec.name, field.spec.Describe(), ByteSize(bytes));
      ++unstreamable_count;
    }
  }
  if (held <= limit || unstreamable.empty()) return std::nullopt;
  return fmt::format(
      "the fields held in memory take {}, more than {} ({}): {} {} held whole for the loader's "
      "life, once per rank, since only array fields are streamed; to bound the memory, leave "
      "{} out of {} and read the rows a batch needs by its indices (with h5py, say)",
      ByteSize(held), OptionName(options, "held_field_bytes"), ByteSize(limit), unstreamable,
      unstreamable_count == 1 ? "is" : "are", unstreamable_count == 1 ? "it" : "them",
      OptionName(options, "fields"));
}

}  // namespace h5feed::loader
