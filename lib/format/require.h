#pragma once
// Require: how the format module's parts refuse what a caller of the Writer got wrong (a
// chunk, an image record, an option), with Error(kInvalidArgument). One helper shared by the
// module's files, which are compiled together (unity sources) and so cannot each define their
// own. Stateless; thread-safe.

#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::format {

// Throws Error(kInvalidArgument) with the message unless `condition` holds. The message is
// formatted only when the condition fails.
template <typename... Args>
void Require(bool condition, fmt::format_string<Args...> format, Args&&... args) {
  if (!condition) throw MakeError(ErrorCode::kInvalidArgument, format, std::forward<Args>(args)...);
}

}  // namespace h5feed::format
