#include "h5feed/error.h"

#include "enum_names.h"

namespace h5feed {

std::string_view ToString(ErrorCode code) noexcept { return NameOf(code); }

ErrorCode ParseErrorCode(std::string_view text) { return ParseName<ErrorCode>(text); }

}  // namespace h5feed
