// ReportValueObject (report_value_object.h).

#include "report_value_object.h"

#include <string>
#include <type_traits>
#include <variant>

namespace py = pybind11;

namespace h5feed::python {
namespace {

py::str Text(const std::string& text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

}  // namespace

py::object ReportValueObject(const ReportValue& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, std::string>) {
          return Text(v);
        } else if constexpr (std::is_same_v<T, ReportValue::List>) {
          py::list list;
          for (const ReportValue& item : v) list.append(ReportValueObject(item));
          return list;
        } else if constexpr (std::is_same_v<T, ReportValue::Object>) {
          py::dict dict;
          for (const auto& entry : v) dict[Text(entry.first)] = ReportValueObject(entry.second);
          return dict;
        } else {
          return py::cast(v);
        }
      },
      value.value);
}

}  // namespace h5feed::python
