#include "hdf5/error.h"

#include <charconv>
#include <vector>

#include "hdf5/range_driver.h"
#include "io/os_error.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

struct StackEntry {
  std::string function;
  std::string description;
};

herr_t CollectEntry(unsigned /*n*/, const H5E_error2_t* error, void* data) {
  auto* entries = static_cast<std::vector<StackEntry>*>(data);
  entries->push_back({error->func_name ? error->func_name : "", error->desc ? error->desc : ""});
  return 0;
}

std::vector<StackEntry> CollectStack() {
  std::vector<StackEntry> entries;
  // H5Ewalk2 and the H5E getters leave the stack as it is (the only API calls that do).
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, CollectEntry, &entries);
  return entries;
}

int ErrnoIn(const std::vector<StackEntry>& entries) {
  // The sec2 and stdio drivers write "..., errno = 28, error message = '...'" (H5FDsec2.c).
  constexpr std::string_view kMarker = "errno = ";
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    size_t at = it->description.find(kMarker);
    if (at == std::string::npos) continue;
    const char* begin = it->description.data() + at + kMarker.size();
    const char* end = it->description.data() + it->description.size();
    int value = 0;
    if (std::from_chars(begin, end, value).ec == std::errc()) return value;
  }
  return 0;
}

std::string Join(const std::vector<StackEntry>& entries) {
  std::string text;
  for (const StackEntry& entry : entries) {
    if (!text.empty()) text += "; ";
    text += entry.function + "(): " + entry.description;
  }
  return text;
}

Error Build(ErrorCode code, std::string_view what, std::string_view file,
            const std::vector<StackEntry>& entries) {
  // A remote read that failed under HDF5 (range_driver.h) says better what went wrong.
  if (std::optional<Error> driver = TakeDriverError()) {
    return driver->Reworded(fmt::format("{}: {}", what, driver->what()));
  }
  std::string stack = Join(entries);
  int error_number = ErrnoIn(entries);
  if (io::IsNoSpaceErrno(error_number)) {
    return io::NoSpaceError(what, file, error_number, "HDF5: " + stack);
  }
  std::string message = std::string(what) + " failed for " + std::string(file);
  message += stack.empty() ? " (HDF5 gave no reason)" : " (HDF5: " + stack + ")";
  return Error(code, message);
}

}  // namespace

std::string ErrorStackText() { return Join(CollectStack()); }

int ErrorStackErrno() { return ErrnoIn(CollectStack()); }

ErrorCode ReadFailureCode() {
  return ErrorStackErrno() != 0 ? ErrorCode::kIo : ErrorCode::kCorrupt;
}

Error StackError(ErrorCode code, std::string_view what, std::string_view file) {
  return Build(code, what, file, CollectStack());
}

Error StackError(ErrorCode code, std::string_view what, hid_t object) {
  std::vector<StackEntry> entries = CollectStack();  // before FileName's calls clear it
  return Build(code, what, FileName(object), entries);
}

std::string FileName(hid_t object) {
  ssize_t size = H5Fget_name(object, nullptr, 0);
  if (size <= 0) return "<unknown file>";
  std::string name(static_cast<size_t>(size) + 1, '\0');
  H5Fget_name(object, name.data(), name.size());
  name.resize(static_cast<size_t>(size));
  return name;
}

std::string DatasetWhere(hid_t location, std::string_view name) {
  return fmt::format("dataset /{} in {}", name, FileName(location));
}

void KeepErrorStack::Keep() {
  if (kept_ < 0) kept_ = H5Eget_current_stack();
}

KeepErrorStack::~KeepErrorStack() {
  if (kept_ >= 0) H5Eset_current_stack(kept_);  // closes kept_
}

SilenceErrors::SilenceErrors() {
  H5Eget_auto2(H5E_DEFAULT, &saved_function_, &saved_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

SilenceErrors::~SilenceErrors() { H5Eset_auto2(H5E_DEFAULT, saved_function_, saved_data_); }

}  // namespace h5feed::hdf5
