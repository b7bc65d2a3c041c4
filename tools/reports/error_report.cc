#include "reports/error_report.h"

#include "enum_names.h"
#include "h5feed/error.h"

namespace h5feed::reports {

ReportValue::Object ErrorValue(const std::string& path, const std::exception& error) {
  const auto* known = dynamic_cast<const Error*>(&error);
  const ErrorCode code = known ? known->code() : ErrorCode::kInternal;
  return {{"path", path},
          {"error", ReportValue::Object{{"code", NameOf(code)}, {"message", error.what()}}}};
}

}  // namespace h5feed::reports
