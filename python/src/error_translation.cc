#include "error_translation.h"

#include <exception>
#include <string>

#include "h5feed/error.h"

namespace h5feed::python {

void RegisterErrorTranslation() {
  pybind11::register_exception_translator([](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      // The classes live in pure Python (multiple inheritance from the built-in exceptions is
      // plain there); looked up by the code's name, which _errors.py keys them by.
      pybind11::object error_class = pybind11::module_::import("h5feed._errors")
                                         .attr("error_class")(std::string(ToString(e.code())));
      PyErr_SetString(error_class.ptr(), e.what());
    }
  });
}

}  // namespace h5feed::python
