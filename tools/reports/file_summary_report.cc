// SummaryText (file_summary_report.h).

#include "reports/file_summary_report.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "reports/report_view.h"
#include "reports/text_lines.h"
#include "units.h"

namespace h5feed::reports {
namespace {

using cli::CountOf;
using cli::FormatCount;

// The dataset of the summary named `name`, if it lists one.
std::optional<ReportView> FindDataset(const ReportView& s, const std::string& name) {
  for (const ReportView& d : s["datasets"].Items()) {
    if (d["name"].Text() == name) return d;
  }
  return std::nullopt;
}

// "images uint8 (50000, 32, 32, 3) chunks (64, 32, 32, 3) zstd:3".
std::string Describe(const ReportView& d) {
  std::string text = d["name"].Text() + " " + d["dtype"].Text() + " " + ShapeText(d["shape"]);
  if (!d["chunk_shape"].Items().empty()) text += " chunks " + ShapeText(d["chunk_shape"]);
  for (const ReportView& filter : d["filters"].Items()) text += " " + filter.Text();
  return text;
}

// "96 / 100 / 128": smallest, median, largest.
std::string SpreadText(const ReportView& spread) {
  return std::to_string(spread["min"].Int()) + " / " + std::to_string(spread["median"].Int()) +
         " / " + std::to_string(spread["max"].Int());
}

// "12x10x3", the largest image's (HxWxC).
std::string ShapeOf(const ReportView& images) {
  return std::to_string(images["height"].Int()) + "x" + std::to_string(images["width"].Int()) +
         "x" + std::to_string(images["channels"].Int());
}

// The lines of an own-size file between "images" and the classes.
std::string OwnSizeText(const ReportView& images, const ReportView& o) {
  const std::string& attribute = o["encoding"].Text();
  std::string encoding = attribute.empty() ? "(no attribute)" : attribute;
  if (o["smart_threshold"].Int() > 0) {
    encoding += " (JPEG above " + FormatCount(o["smart_threshold"].Int()) + " bytes of pixels)";
  }
  const int64_t chunks = o["chunks"].Int();
  const ReportView per_chunk = o["images_per_chunk"];
  const ReportView aspect = o["aspect"];
  const int64_t gray = o["gray_images"].Int();
  std::string stored = BytesText(o["pixel_bytes"]) + " of pixels (H*W*C) -> ";
  stored += o["stored_bytes"].Int() > 0 ? BytesText(o["stored_bytes"]) + " stored (" +
                                              Fixed(o["pixel_ratio"].Real(), 2) + "x)"
                                        : "storage size unknown";
  return Line("encoding", encoding + ": " + EncodingCountsText(o["encodings"])) +
         Line("max side", o["max_side"].Int() > 0
                              ? std::to_string(o["max_side"].Int()) + " (longer side capped)"
                              : "none (not capped)") +
         Line("sizes", "height " + SpreadText(o["height"]) + ", width " + SpreadText(o["width"]) +
                           " (min / median / max)" +
                           (gray > 0 ? ", " + FormatCount(gray) + " grayscale" : "")) +
         Line("aspect", FormatCount(aspect["portrait"].Int()) + " portrait, " +
                            FormatCount(aspect["square"].Int()) + " square, " +
                            FormatCount(aspect["landscape"].Int()) + " landscape") +
         Line("chunks", CountOf(chunks, "chunk") + " of " + BytesText(o["chunk_bytes"]) + " (" +
                            Fixed(per_chunk["mean"].Real(), 1) + " images a chunk, " +
                            std::to_string(per_chunk["min"].Int()) + " to " +
                            std::to_string(per_chunk["max"].Int()) + "), " +
                            Fixed(100 * o["chunk_fill"].Real(), 0) + "% full") +
         // No ratio of the chunks' bytes: their unused tails compress to nothing, and would
         // be counted; "stored" gives the pixels' ratio.
         Line("compression", images["compression"].Text()) + Line("stored", stored);
}

// The lines of a file of one image size (or of foreign images) after "file" and "format".
std::string ImagesText(const ReportView& s, const ReportView& images) {
  const std::string name = images["dataset"].Text();
  const std::string counted = name + ": " + FormatCount(images["num_images"].Int());
  const std::string layout = ", layout " + images["layout"].Text();
  if (!images["own_size"].IsNull()) {
    return Line("images", counted + " images at their own size, up to " + ShapeOf(images) +
                              " (HxWxC)" + layout) +
           OwnSizeText(images, images["own_size"]);
  }
  std::string text =
      Line("images", counted + " images of " + ShapeOf(images) + " (HxWxC)" + layout +
                         (images["layout_guessed"].Bool() ? " (inferred)" : ""));
  const std::optional<ReportView> dataset = FindDataset(s, name);
  if (images["chunk_images"].Int() > 0) {
    text += Line("chunks",
                 CountOf(images["chunk_count"].Int(), "chunk") + " of " +
                     CountOf(images["chunk_images"].Int(), "image") + " (" +
                     BytesText(images["chunk_bytes"]) + " uncompressed)" +
                     (dataset ? ", chunk shape " + ShapeText((*dataset)["chunk_shape"]) : ""));
  } else {
    text += Line("chunks", "none (contiguous storage)");
  }
  const double ratio = images["compression_ratio"].Real();
  const std::string stored = dataset ? BytesText((*dataset)["stored_bytes"]) : "0 B";
  return text +
         Line("compression",
              images["compression"].Text() +
                  (ratio > 0 ? ", ratio " + Fixed(ratio, 2) + " (" + stored + " stored)" : ""));
}

// Characters, not bytes, so UTF-8 class names ("émeu") line up: continuation bytes are
// 10xxxxxx.
size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// Long lists are cut in text; --json has them whole.
constexpr size_t kMaxClassLines = 50;
constexpr size_t kMaxSkippedLines = 20;

std::string ClassesText(const ReportView& s) {
  const std::vector<ReportView> classes = s["classes"].Items();
  const bool labeled = !s["labels"].IsNull();
  if (!labeled && classes.empty()) return "";
  std::string text = Line(
      "classes", FormatCount(static_cast<int64_t>(classes.size())) +
                     (labeled ? ", counts from " + s["labels"].Text() : " (no labels dataset)"));
  const size_t shown = std::min(classes.size(), kMaxClassLines);
  size_t name_width = 0;
  for (size_t i = 0; i < shown; ++i) {
    name_width = std::max(name_width, DisplayWidth(classes[i]["name"].Text()));
  }
  const size_t index_width = std::to_string(shown > 0 ? shown - 1 : 0).size();
  std::vector<std::string> lines;
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string index = std::to_string(i);
    const std::string& name = classes[i]["name"].Text();
    lines.push_back(std::string(index_width - std::min(index_width, index.size()), ' ') + index +
                    "  " + name +
                    std::string(name_width - std::min(name_width, DisplayWidth(name)) + 2, ' ') +
                    FormatCount(classes[i]["count"].Int()));
  }
  return text + CutList(lines, kMaxClassLines, "  ");
}

std::string LabelOrderText(const ReportView& order) {
  if (order.IsNull()) return "";
  // LabelOrder::Describe's words.
  const std::string& word = order["order"].Text();
  return Line("label order", (word == "mixed" ? word : word + " by label") + ": " +
                                 CountOf(order["runs"].Int(), "run") + " of one label for " +
                                 CountOf(order["classes"].Int(), "class", "classes") +
                                 " (a random order has about " +
                                 Fixed(order["random_runs"].Real(), 0) + ")");
}

std::string SkippedText(const ReportView& skipped) {
  if (skipped.IsNull()) return "";
  std::vector<std::string> lines;
  for (const ReportView& e : skipped.Items()) {
    lines.push_back(e["source"].Text() + ": " + e["reason"].Text());
  }
  return Line("skipped", CountOf(static_cast<int64_t>(lines.size()), "source")) +
         CutList(lines, kMaxSkippedLines, "  ");
}

// "box classes  3: 0 person (1), 1 bicycle (2), 2 car (3)": box label, name (source id), the
// first few.
std::string BoxClassesText(const ReportView& classes) {
  constexpr size_t kShown = 8;
  const std::vector<ReportView> items = classes.Items();
  if (items.empty()) return "";
  std::string text = std::to_string(items.size()) + ":";
  for (size_t c = 0; c < std::min(items.size(), kShown); ++c) {
    text += (c == 0 ? " " : ", ") + std::to_string(c) + " " + items[c]["name"].Text() + " (" +
            std::to_string(items[c]["source_id"].Int()) + ")";
  }
  if (items.size() > kShown) text += ", ...";
  return Line("box classes", text);
}

// "fields       2" and a line each: "  attrs  array of bool, shape (40,): 1.4 KiB stored";
// "  caption  text: 80 B of values, 400 B stored (values in HDF5's global heap, unfiltered)";
// "  iscrowd  box_values uint8 of boxes: 36 B of values, ...".
std::string FieldListText(const ReportView& s) {
  std::string text = s["labelled"].Bool() ? "" : Line("labels", "none: the samples have none");
  const std::vector<ReportView> fields = s["fields"].Items();
  if (fields.empty()) return text;
  size_t name_width = 0;
  for (const ReportView& f : fields) {
    name_width = std::max(name_width, DisplayWidth(f["name"].Text()));
  }
  text += Line("fields", std::to_string(fields.size()));
  for (const ReportView& f : fields) {
    const std::string& name = f["name"].Text();
    std::string what = f["kind"].Text();
    if (what == "array") what += " of " + f["dtype"].Text() + ", shape " + ShapeText(f["shape"]);
    // Box labels and values as their type describes them: "box_values int32 of boxes".
    if (what == "box_labels" || what == "box_values") {
      const std::string& type = f["type"].Text();
      what = type.substr(0, type.find(" (stored as"));
    }
    std::string bytes =
        f["value_bytes"].Int() > 0 ? BytesText(f["value_bytes"]) + " of values, " : "";
    bytes += f["stored_bytes"].Int() > 0 ? BytesText(f["stored_bytes"]) + " stored"
                                         : "stored size unknown";
    // A bytes or text field's values are outside its chunks, and never compressed by HDF5.
    if (f["storage"].Text() == "global heap")
      bytes += " (values in HDF5's global heap, unfiltered)";
    text += "  " + name + std::string(name_width - DisplayWidth(name) + 2, ' ') + what + ": " +
            bytes + "\n";
  }
  return text + BoxClassesText(s["box_classes"]);
}

}  // namespace

std::string SummaryText(const ReportValue& value) {
  const ReportView s(value);
  std::string t = Line("file", s["path"].Text() + " (" + BytesText(s["file_bytes"]) + ")");
  t += Line("format", s["is_h5feed"].Bool()
                          ? "h5feed version " + std::to_string(s["format_version"].Int())
                          : "HDF5 (not written by h5feed)");
  const ReportView images = s["images"];
  t += images.IsNull() ? Line("images", "none found") : ImagesText(s, images);
  t += ClassesText(s) + LabelOrderText(s["label_order"]) + SkippedText(s["skipped"]) +
       FieldListText(s);
  const ReportValue::Object& attributes = s["attributes"].Entries();
  if (!attributes.empty()) {
    t += Line("attributes", "");
    for (const auto& [name, text] : attributes) {
      t += "  " + name + " = " + ReportView(text, name).Text() + "\n";
    }
  }
  const std::vector<ReportView> datasets = s["datasets"].Items();
  t += Line("datasets", std::to_string(datasets.size()));
  for (const ReportView& d : datasets) {
    const double ratio = d["ratio"].Real();
    t += "  " + Describe(d) + ", " + BytesText(d["stored_bytes"]) + " stored";
    if (d["heap_bytes"].Int() > 0) {
      t += " + " + BytesText(d["heap_bytes"]) + " of values in HDF5's global heap";
    }
    if (ratio > 0 && (ratio < 0.995 || ratio > 1.005)) t += ", ratio " + Fixed(ratio, 2);
    t += "\n";
  }
  for (const ReportView& note : s["notes"].Items()) t += "note: " + note.Text() + "\n";
  return t;
}

}  // namespace h5feed::reports
