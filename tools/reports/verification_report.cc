// VerificationText (verification_report.h).

#include "reports/verification_report.h"

#include <vector>

#include "reports/report_view.h"
#include "reports/text_lines.h"
#include "units.h"

namespace h5feed::reports {
namespace {

using cli::CountOf;
using cli::FormatCount;

// Text lists are cut here (the JSON has them all): a file with every chunk damaged would
// otherwise print thousands of lines.
constexpr size_t kTextListed = 50;

std::string Verdict(const ReportView& r) {
  const std::string path = r["path"].Text();
  const std::string chunks = CountOf(r["chunks"].Int(), "chunk");
  const std::string images = CountOf(r["samples"].Int(), "image");
  if (r["ok"].Bool()) {
    return path + ": OK: nothing wrong found in " + chunks + " (" + images + ")" +
           (r["not_checked"].Items().empty() ? "" : "; some things could not be checked (below)") +
           "\n";
  }
  std::string text = path + ": DAMAGED: ";
  if (!r["indexed"].Bool()) return text + "the file cannot be read as an image file\n";
  const size_t bad_images = r["bad_images"].Items().size();
  const size_t problems = r["problems"].Items().size();
  text +=
      FormatCount(static_cast<int64_t>(r["bad_chunks"].Items().size())) + " of " + chunks + " bad";
  if (bad_images > 0) {
    text += " (" + FormatCount(static_cast<int64_t>(bad_images)) + " of " + images + " bad)";
  }
  if (problems > 0) {
    text += ", " + CountOf(static_cast<int64_t>(problems), "other problem");
  }
  return text + "\n";
}

// Each line of the list under `key` after `prefix`: "  problem: ...".
std::string Prefixed(const ReportView& r, const char* key, const std::string& prefix) {
  std::string text;
  for (const ReportView& line : r[key].Items()) text += "  " + prefix + line.Text() + "\n";
  return text;
}

}  // namespace

std::string VerificationText(const ReportValue& value) {
  const ReportView r(value);
  std::vector<std::string> chunks;
  for (const ReportView& p : r["bad_chunks"].Items()) {
    chunks.push_back("bad chunk " + std::to_string(p["chunk"].Int()) + " (rows " +
                     std::to_string(p["first_row"].Int()) + "-" +
                     std::to_string(p["last_row"].Int()) + "): " + p["problem"].Text());
  }
  std::vector<std::string> images;
  for (const ReportView& p : r["bad_images"].Items()) {
    images.push_back("bad image row " + std::to_string(p["row"].Int()) + " (chunk " +
                     std::to_string(p["chunk"].Int()) +
                     (p["source"].IsNull() ? "" : ", source " + p["source"].Text()) +
                     "): " + p["problem"].Text());
  }
  return Verdict(r) + CutList(chunks, kTextListed, "  ", "bad chunks") +
         CutList(images, kTextListed, "  ", "bad images") + Prefixed(r, "problems", "problem: ") +
         Prefixed(r, "warnings", "warning: ") + Prefixed(r, "checked", "checked: ") +
         Prefixed(r, "not_checked", "not checked: ");
}

}  // namespace h5feed::reports
