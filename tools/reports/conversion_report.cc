// ConversionText (conversion_report.h).

#include "reports/conversion_report.h"

#include <string>
#include <vector>

#include "reports/report_view.h"
#include "reports/text_lines.h"
#include "units.h"

namespace h5feed::reports {
namespace {

using cli::CountOf;
using cli::FormatCount;

// Skipped inputs listed in the text: a data set with thousands of broken files would otherwise
// bury the report (inspect lists as many).
constexpr size_t kSkippedListed = 20;

// "jpeg:90 (JPEG 4:2:0)", "smart:90 (JPEG 4:2:0 above 192 KiB of pixels: 3 raw, 5 jpeg)".
std::string EncodingText(const ReportView& r) {
  const std::string& encoding = r["encoding"].Text();
  if (r["smart_threshold"].Int() > 0) {
    return encoding + " (JPEG 4:2:0 above " + BytesText(r["smart_threshold"]) +
           " of pixels: " + EncodingCountsText(r["encodings"]) + ")";
  }
  return encoding.starts_with("jpeg") ? encoding + " (JPEG 4:2:0)" : encoding;
}

// "25.4 MiB of pixels -> 4.0 MiB (6.36x)" (own size) or "1.2 MiB -> 300 KiB (4.00x)".
std::string SizesText(const ReportView& r, const std::string& raw_words) {
  return BytesText(r["raw_bytes"]) + raw_words + " -> " + BytesText(r["stored_bytes"]) + " (" +
         Fixed(r["compression_ratio"].Real(), 2) + "x)";
}

std::string StorageText(const ReportView& r) {
  const std::string order = r["shuffled"].Bool()
                                ? "shuffled with seed " + std::to_string(r["seed"].Unsigned())
                                : "in source order";
  const int64_t chunks = r["chunks"].Int();
  const std::string compression = r["compression"].Text();
  if (r["own_size"].Bool()) {
    const int64_t max_side = r["max_side"].Int();
    return "  each image at its own size (" +
           (max_side > 0 ? "longer side at most " + std::to_string(max_side)
                         : std::string("no cap on the longer side")) +
           "), " + EncodingText(r) + ", " + FormatCount(chunks) +
           (chunks == 1 ? " chunk of " : " chunks of ") + BytesText(r["chunk_bytes"]) + " (" +
           Fixed(r["images_per_chunk"].Real(), 1) + " images a chunk, " +
           Fixed(100 * r["chunk_fill"].Real(), 0) + "% full), " + compression + ": " +
           SizesText(r, " of pixels") + ", " + order + "\n";
  }
  const std::vector<ReportView> shape = r["image_shape"].Items();
  return "  " + std::to_string(shape[0].Int()) + "x" + std::to_string(shape[1].Int()) + "x" +
         std::to_string(shape[2].Int()) + " uint8, " + CountOf(chunks, "chunk") + " of " +
         FormatCount(r["chunk_images"].Int()) + " images, " + compression + ": " +
         SizesText(r, "") + ", " + order + "\n";
}

// "  fields: attrs (bool[40]), caption (text)", "  no labels", and the source's notes.
std::string FieldsText(const ReportView& r) {
  std::string text;
  const std::vector<ReportView> fields = r["fields"].Items();
  if (!fields.empty()) {
    text += "  fields:";
    for (size_t f = 0; f < fields.size(); ++f) {
      text += (f ? ", " : " ") + fields[f]["name"].Text() + " (" + fields[f]["type"].Text() + ")";
    }
    text += "\n";
  }
  if (!r["labelled"].Bool()) text += "  no labels: the samples have none\n";
  for (const ReportView& note : r["notes"].Items()) text += "  note: " + note.Text() + "\n";
  return text;
}

}  // namespace

std::string ConversionText(const ReportValue& value, const std::string& input) {
  const ReportView r(value);
  const std::string path = r["path"].Text();
  std::string text = "converted " + FormatCount(r["images"].Int()) + " of " +
                     FormatCount(r["inputs"].Int()) + " images from " + input + " to " + path +
                     " in " + cli::FormatDuration(r["seconds"].Real()) + " (" +
                     FormatCount(static_cast<int64_t>(r["inputs_per_s"].Real())) + " images/s)\n" +
                     StorageText(r);
  text += FieldsText(r);
  const std::vector<ReportView> skipped = r["skipped"].Items();
  if (!skipped.empty()) {
    text += "  " + FormatCount(static_cast<int64_t>(skipped.size())) + " skipped (recorded in " +
            path + ":/skipped_sources):\n";
    std::vector<std::string> lines;
    for (const ReportView& s : skipped)
      lines.push_back(s["source"].Text() + ": " + s["reason"].Text());
    text += CutList(lines, kSkippedListed, "    ");
  }
  return text;
}

}  // namespace h5feed::reports
