// ToJson and ToJsonLine (report_json.h).

#include "reports/report_json.h"

#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

namespace h5feed::reports {
namespace {

using json = nlohmann::ordered_json;  // keeps the tree's order (nlohmann's json sorts keys)

json Json(const ReportValue& value) {
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, ReportValue::List>) {
          json list = json::array();
          for (const ReportValue& item : v) list.push_back(Json(item));
          return list;
        } else if constexpr (std::is_same_v<T, ReportValue::Object>) {
          json object = json::object();
          for (const auto& entry : v) object[entry.first] = Json(entry.second);
          return object;
        } else {
          return v;
        }
      },
      value.value);
}

std::string Dump(const ReportValue& value, int indent) {
  return Json(value).dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string ToJson(const ReportValue& value) { return Dump(value, 2); }

std::string ToJsonLine(const ReportValue& value) { return Dump(value, -1); }

}  // namespace h5feed::reports
