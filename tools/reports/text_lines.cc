// Line, BytesText, Fixed, ShapeText, EncodingCountsText and CutList (text_lines.h).

#include "reports/text_lines.h"

#include <cstdio>

#include "byte_size.h"
#include "units.h"

namespace h5feed::reports {

std::string Line(const std::string& label, const std::string& value) {
  if (value.empty()) return label + "\n";
  return label + std::string(label.size() < 13 ? 13 - label.size() : 1, ' ') + value + "\n";
}

std::string BytesText(const ReportView& bytes) { return ToString(ByteSize(bytes.Int())); }

std::string Fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string ShapeText(const ReportView& dims) {
  const std::vector<ReportView> items = dims.Items();
  std::string text = "(";
  for (size_t i = 0; i < items.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(items[i].Int());
  }
  return text + (items.size() == 1 ? ",)" : ")");
}

std::string EncodingCountsText(const ReportView& encodings) {
  std::string text;
  for (const auto& [key, count] : encodings.Entries()) {
    if (!text.empty()) text += ", ";
    text += cli::FormatCount(ReportView(count, key).Int()) + " " + key;
  }
  return text;
}

std::string CutList(const std::vector<std::string>& lines, size_t most, const std::string& indent,
                    const std::string& what) {
  std::string text;
  for (size_t i = 0; i < lines.size() && i < most; ++i) text += indent + lines[i] + "\n";
  if (lines.size() > most) {
    text += indent + "... " + std::to_string(lines.size() - most) + " more" +
            (what.empty() ? "" : " " + what) + " (--json lists all)\n";
  }
  return text;
}

}  // namespace h5feed::reports
