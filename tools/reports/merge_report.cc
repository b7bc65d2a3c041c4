// MergeText (merge_report.h).

#include "reports/merge_report.h"

#include "byte_size.h"
#include "reports/report_view.h"
#include "units.h"

namespace h5feed::reports {

std::string MergeText(const ReportValue& value) {
  using cli::FormatCount;
  const ReportView r(value);
  const std::string path = r["path"].Text();
  std::string text = "merged " + FormatCount(r["parts"].Int()) + " parts into " + path + " in " +
                     cli::FormatDuration(r["seconds"].Real()) + " (" +
                     ToString(ByteSize(static_cast<int64_t>(r["bytes_per_s"].Real()))) +
                     "/s): " + FormatCount(r["images"].Int()) + " images, " +
                     FormatCount(r["chunks"].Int()) + " chunks, " +
                     ToString(ByteSize(r["stored_bytes"].Int())) + "\n";
  text += "  " + FormatCount(r["copied_chunks"].Int()) + " chunks copied untouched (" +
          ToString(ByteSize(r["copied_bytes"].Int())) + ")";
  if (r["repacked_rows"].Int() > 0) {
    text += ", " + FormatCount(r["repacked_rows"].Int()) +
            " images of the parts' short last chunks compressed again";
  }
  text += "\n";
  if (r["skipped"].Int() > 0) {
    text += "  " + FormatCount(r["skipped"].Int()) + " inputs the parts skipped are recorded in " +
            path + ":/skipped_sources\n";
  }
  return text;
}

}  // namespace h5feed::reports
