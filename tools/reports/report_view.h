#pragma once
// Reading a report tree (h5feed/report_value.h) by key: what the text renderers of tools/reports/
// read their figures through. A report's keys are spelled by its builder in the library
// (SummaryValue, VerificationValue, ...) and the text is written from the tree, so text, JSON and
// Python's dict show the same figures, derived ones (chunk fill, ratios) computed once there.
//
// A renderer that asks for a key the tree lacks, or reads a value as another kind, disagrees with
// the builder: a bug, thrown as Error(kInternal) naming the key's path ("images.own_size.x").
//
// A view points into a tree it does not own: the tree must outlive it. Thread-safe for reading.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/report_value.h"

namespace h5feed::reports {

class ReportView {
 public:
  explicit ReportView(const ReportValue& value, std::string path = "") noexcept
      : value_(&value), path_(std::move(path)) {}

  // The value under `key` of an object.
  ReportView operator[](std::string_view key) const;
  // Whether this is an object with `key` (false for null).
  bool Has(std::string_view key) const;

  bool IsNull() const;
  bool Bool() const;
  int64_t Int() const;
  // A non-negative integer of either kind (a seed may exceed int64's range).
  uint64_t Unsigned() const;
  // A number of either kind.
  double Real() const;
  const std::string& Text() const;
  // The items of a list, in order.
  std::vector<ReportView> Items() const;
  // The entries of an object, in order.
  const ReportValue::Object& Entries() const;

 private:
  [[noreturn]] void Mismatch(const char* wanted) const;

  const ReportValue* value_;
  std::string path_;  // for messages: "images.own_size", "bad_chunks[3].problem"
};

}  // namespace h5feed::reports
