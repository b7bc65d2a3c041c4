// ToJson and ToText of FileSummary (file_summary_report.h).

#include "reports/file_summary_report.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

#include "byte_size.h"
#include "units.h"

namespace h5feed::reports {
namespace {

// "(10, 8, 6, 3)", and "(5,)" for one dimension, as Python writes a shape.
std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

// The dataset of `s` named `name`, or nullptr.
const DatasetSummary* FindDataset(const FileSummary& s, const std::string& name) {
  for (const DatasetSummary& d : s.datasets) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// "images uint8 (50000, 32, 32, 3) chunks (64, 32, 32, 3) zstd:3".
std::string Describe(const DatasetSummary& d) {
  std::string text = d.name + " " + d.dtype + " " + ShapeText(d.shape);
  if (!d.chunk_shape.empty()) text += " chunks " + ShapeText(d.chunk_shape);
  for (const std::string& filter : d.filters) text += " " + filter;
  return text;
}

std::string Fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// "96 / 100 / 128": smallest, median, largest.
std::string SpreadText(const SizeSpread& spread) {
  return std::to_string(spread.min) + " / " + std::to_string(spread.median) + " / " +
         std::to_string(spread.max);
}

// `value` as JSON, keys in the order it holds them (nlohmann's default json sorts them).
nlohmann::ordered_json Json(const ReportValue& value) {
  using json = nlohmann::ordered_json;
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, ReportValue::List>) {
          json list = json::array();
          for (const ReportValue& item : v) list.push_back(Json(item));
          return list;
        } else if constexpr (std::is_same_v<T, ReportValue::Object>) {
          json object = json::object();
          for (const auto& entry : v) object[entry.first] = Json(entry.second);
          return object;
        } else {
          return v;
        }
      },
      value.value);
}

// "13 JPEG, 2 raw" in the order the encoding attribute suggests.
std::string EncodingCounts(const OwnSizeSummary& o) {
  const std::string jpeg = cli::FormatCount(o.jpeg_images) + " JPEG";
  const std::string raw = cli::FormatCount(o.raw_images) + " raw";
  return o.encoding.starts_with("raw") ? raw + ", " + jpeg : jpeg + ", " + raw;
}

// The lines of an own-size file between "images" and the classes.
void OwnSizeText(const FileSummary& s, const OwnSizeSummary& o,
                 const std::function<void(const std::string&, const std::string&)>& line) {
  std::string encoding = o.encoding.empty() ? "(no attribute)" : o.encoding;
  if (o.encoding.starts_with("smart") && o.smart_threshold > 0) {
    encoding += " (JPEG above " + cli::FormatCount(o.smart_threshold) + " bytes of pixels)";
  }
  line("encoding", encoding + ": " + EncodingCounts(o));
  line("max side",
       o.max_side > 0 ? std::to_string(o.max_side) + " (longer side capped)" : "none (not capped)");
  line("sizes",
       "height " + SpreadText(o.height) + ", width " + SpreadText(o.width) +
           " (min / median / max)" +
           (o.gray_images > 0 ? ", " + cli::FormatCount(o.gray_images) + " grayscale" : ""));
  line("aspect", cli::FormatCount(o.aspect.portrait) + " portrait, " +
                     cli::FormatCount(o.aspect.square) + " square, " +
                     cli::FormatCount(o.aspect.landscape) + " landscape");
  line("chunks", cli::FormatCount(o.chunks) + (o.chunks == 1 ? " chunk of " : " chunks of ") +
                     ToString(ByteSize(o.chunk_bytes)) + " (" + Fixed(o.mean_images_per_chunk, 1) +
                     " images a chunk, " + std::to_string(o.min_images_per_chunk) + " to " +
                     std::to_string(o.max_images_per_chunk) + "), " + Fixed(100 * o.chunk_fill, 0) +
                     "% full");
  std::string ratio = s.compression_ratio > 0 ? ", ratio " + Fixed(s.compression_ratio, 2) : "";
  line("compression", s.compression + ratio);
  std::string stored = ToString(ByteSize(o.pixel_bytes)) + " of pixels (H*W*C) -> ";
  stored += o.stored_bytes > 0
                ? ToString(ByteSize(o.stored_bytes)) + " stored (" + Fixed(o.pixel_ratio, 2) + "x)"
                : "storage size unknown";
  line("stored", stored);
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

}  // namespace

std::string ToJson(const FileSummary& s) {
  // Source names and class names need not be valid UTF-8 (fixed-length strings from h5py
  // may hold anything): replace bad bytes instead of throwing.
  return Json(SummaryValue(s))
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

std::string ToText(const FileSummary& s) {
  std::string t;
  auto line = [&t](const std::string& label, const std::string& value) {
    t += value.empty()
             ? label + "\n"
             : label + std::string(label.size() < 13 ? 13 - label.size() : 1, ' ') + value + "\n";
  };
  line("file", s.path + " (" + ToString(ByteSize(s.file_bytes)) + ")");
  line("format", s.is_h5feed ? "h5feed version " + std::to_string(s.format_version)
                             : "HDF5 (not written by h5feed)");
  if (s.has_images && s.own_size) {
    line("images", s.images + ": " + std::to_string(s.num_images) +
                       " images at their own size, up to " + std::to_string(s.height) + "x" +
                       std::to_string(s.width) + "x" + std::to_string(s.channels) +
                       " (HxWxC), layout " + std::string(ToString(s.layout)));
    OwnSizeText(s, *s.own_size, line);
  } else if (s.has_images) {
    line("images", s.images + ": " + std::to_string(s.num_images) + " images of " +
                       std::to_string(s.height) + "x" + std::to_string(s.width) + "x" +
                       std::to_string(s.channels) + " (HxWxC), layout " +
                       std::string(ToString(s.layout)) + (s.layout_guessed ? " (inferred)" : ""));
    const DatasetSummary* images = FindDataset(s, s.images);
    if (s.chunk_images > 0) {
      uint64_t chunk_bytes =
          static_cast<uint64_t>(s.chunk_images * s.height * s.width * s.channels);
      line("chunks",
           std::to_string(s.chunk_count) + " chunks of " + std::to_string(s.chunk_images) +
               " images (" + ToString(ByteSize(chunk_bytes)) + " uncompressed)" +
               (images != nullptr ? ", chunk shape " + ShapeText(images->chunk_shape) : ""));
    } else {
      line("chunks", "none (contiguous storage)");
    }
    std::string ratio = s.compression_ratio > 0
                            ? ", ratio " + Fixed(s.compression_ratio, 2) + " (" +
                                  ToString(ByteSize(images ? images->stored_bytes : 0)) + " stored)"
                            : "";
    line("compression", s.compression + ratio);
  } else {
    line("images", "none found");
  }
  if (!s.labels.empty() || !s.classes.empty()) {
    line("classes", std::to_string(s.classes.size()) +
                        (s.labels.empty() ? " (no labels dataset)" : ", counts from " + s.labels));
    const size_t shown = std::min(s.classes.size(), kMaxClassLines);
    size_t name_width = 0;
    for (size_t i = 0; i < shown; ++i) {
      name_width = std::max(name_width, DisplayWidth(s.classes[i].name));
    }
    const size_t index_width = std::to_string(shown > 0 ? shown - 1 : 0).size();
    for (size_t i = 0; i < shown; ++i) {
      const ClassCount& c = s.classes[i];
      std::string index = std::to_string(i);
      t += "  " + std::string(index_width - index.size(), ' ') + index + "  " + c.name +
           std::string(name_width - DisplayWidth(c.name) + 2, ' ') + std::to_string(c.count) + "\n";
    }
    if (s.classes.size() > kMaxClassLines) {
      t += "  ... " + std::to_string(s.classes.size() - kMaxClassLines) +
           " more (--json lists all)\n";
    }
  }
  if (const std::optional<LabelOrder>& order = s.label_order) {
    line("label order", order->Describe() + ": " + std::to_string(order->runs) +
                            " runs of one label for " + std::to_string(order->classes) +
                            " classes (a random order has about " + Fixed(order->random_runs, 0) +
                            ")");
  }
  if (s.has_skipped) {
    line("skipped",
         std::to_string(s.skipped.size()) + (s.skipped.size() == 1 ? " source" : " sources"));
    for (size_t i = 0; i < s.skipped.size() && i < kMaxSkippedLines; ++i) {
      t += "  " + s.skipped[i].source + ": " + s.skipped[i].reason + "\n";
    }
    if (s.skipped.size() > kMaxSkippedLines) {
      t += "  ... " + std::to_string(s.skipped.size() - kMaxSkippedLines) +
           " more (--json lists all)\n";
    }
  }
  if (!s.attributes.empty()) {
    line("attributes", "");
    for (const AttributeText& a : s.attributes) t += "  " + a.name + " = " + a.value + "\n";
  }
  line("datasets", std::to_string(s.datasets.size()));
  for (const DatasetSummary& d : s.datasets) {
    t += "  " + Describe(d) + ", " + ToString(ByteSize(d.stored_bytes)) + " stored";
    if (d.ratio > 0 && (d.ratio < 0.995 || d.ratio > 1.005)) t += ", ratio " + Fixed(d.ratio, 2);
    t += "\n";
  }
  for (const std::string& note : s.notes) t += "note: " + note + "\n";
  return t;
}

}  // namespace h5feed::reports
