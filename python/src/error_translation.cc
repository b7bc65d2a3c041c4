#include "error_translation.h"

#include <exception>
#include <string>
#include <utility>

#include "enum_names.h"
#include "h5feed/error.h"

namespace h5feed::python {
namespace {

// Python's name of each code (h5feed.ErrorCode.NOT_FOUND); the value it carries is the code's
// word, from the C++ table (lib/enum_names.h).
constexpr std::pair<const char*, ErrorCode> kMemberNames[] = {
    {"INVALID_ARGUMENT", ErrorCode::kInvalidArgument},
    {"NOT_FOUND", ErrorCode::kNotFound},
    {"ALREADY_EXISTS", ErrorCode::kAlreadyExists},
    {"IO", ErrorCode::kIo},
    {"NO_SPACE", ErrorCode::kNoSpace},
    {"CORRUPT", ErrorCode::kCorrupt},
    {"UNSUPPORTED", ErrorCode::kUnsupported},
    {"CANCELLED", ErrorCode::kCancelled},
    {"CUDA", ErrorCode::kCuda},
    {"INTERNAL", ErrorCode::kInternal},
};
static_assert(std::size(kMemberNames) == std::size(EnumNames<ErrorCode>::names),
              "every ErrorCode needs its name in Python");

}  // namespace

void RegisterErrorTranslation(pybind11::module_& module) {
  pybind11::list codes;
  for (const auto& [name, code] : kMemberNames) {
    codes.append(pybind11::make_tuple(name, std::string(ToString(code))));
  }
  module.attr("error_codes") = codes;
  pybind11::register_exception_translator([](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      // The classes live in pure Python (multiple inheritance from the built-in exceptions is
      // plain there); looked up by the code's word, which _errors.py keys them by.
      pybind11::object error_class = pybind11::module_::import("h5feed._errors")
                                         .attr("error_class")(std::string(ToString(e.code())));
      PyErr_SetString(error_class.ptr(), e.what());
    }
  });
}

}  // namespace h5feed::python
