#pragma once
// A report as plain values, its keys in order: how a report's field names are spelled once.
// `h5feed inspect --json` writes a FileSummary's (h5feed/file_summary.h, SummaryValue) as JSON
// and Python's h5feed.inspect() returns it as a dict, each by walking this tree, so the two
// cannot drift apart.
//
// A value type: copy it, compare it, hand it between threads like a std::string.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace h5feed {

struct ReportValue {
  using List = std::vector<ReportValue>;
  // Keys in the order they are written (JSON's order, a dict's insertion order).
  using Object = std::vector<std::pair<std::string, ReportValue>>;

  // null, as JSON's null and Python's None.
  std::variant<std::monostate, bool, int64_t, double, std::string, List, Object> value;

  ReportValue() = default;
  ReportValue(std::nullptr_t) {}
  ReportValue(bool b) : value(b) {}
  template <std::integral Integer>
  requires(!std::same_as<Integer, bool>) ReportValue(Integer n) : value(static_cast<int64_t>(n)) {}
  ReportValue(double d) : value(d) {}
  ReportValue(std::string text) : value(std::move(text)) {}
  ReportValue(std::string_view text) : value(std::string(text)) {}
  ReportValue(const char* text) : value(std::string(text)) {}
  ReportValue(List list) : value(std::move(list)) {}
  ReportValue(Object object) : value(std::move(object)) {}

  bool operator==(const ReportValue&) const = default;
};

}  // namespace h5feed
