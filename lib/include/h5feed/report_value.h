#pragma once
// A report as plain values, its keys in order: how a report's field names are spelled once.
// Each report has its builder beside its struct (SummaryValue in h5feed/file_summary.h,
// VerificationValue in h5feed/verify.h, StatsValue and DatasetValue in h5feed/loader.h, and the
// converters' ConversionValue and MergeValue); the command writes the tree as JSON or text and
// Python returns it as a dict, each by one walker, so they cannot drift apart.
//
// A value type: copy it, compare it, hand it between threads like a std::string.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace h5feed {

struct ReportValue {
  using List = std::vector<ReportValue>;
  // Keys in the order they are written (JSON's order, a dict's insertion order).
  using Object = std::vector<std::pair<std::string, ReportValue>>;

  // null, as JSON's null and Python's None. An integer is int64_t unless it is unsigned and
  // above INT64_MAX (a seed may be), so one number always has one representation.
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, List, Object> value;

  ReportValue() = default;
  ReportValue(std::nullptr_t) {}
  ReportValue(bool b) : value(b) {}
  template <std::integral Integer>
  requires(!std::same_as<Integer, bool>) ReportValue(Integer n) {
    if constexpr (std::is_unsigned_v<Integer>) {
      if (static_cast<uint64_t>(n) > static_cast<uint64_t>(INT64_MAX)) {
        value = static_cast<uint64_t>(n);
        return;
      }
    }
    value = static_cast<int64_t>(n);
  }
  ReportValue(double d) : value(d) {}
  ReportValue(std::string text) : value(std::move(text)) {}
  ReportValue(std::string_view text) : value(std::string(text)) {}
  ReportValue(const char* text) : value(std::string(text)) {}
  ReportValue(List list) : value(std::move(list)) {}
  ReportValue(Object object) : value(std::move(object)) {}

  bool operator==(const ReportValue&) const = default;
};

}  // namespace h5feed
