// SummaryValue (h5feed/file_summary.h): the one place the inspect report's keys are spelled.

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/file_summary.h"

namespace h5feed {
namespace {

using Object = ReportValue::Object;
using List = ReportValue::List;

template <class T>
List ListOf(const std::vector<T>& items) {
  return List(items.begin(), items.end());
}

ReportValue SpreadValue(const SizeSpread& spread) {
  return Object{{"min", spread.min}, {"median", spread.median}, {"max", spread.max}};
}

ReportValue OwnSizeValue(const OwnSizeSummary& o) {
  return Object{{"encoding", o.encoding},
                {"smart_threshold", o.smart_threshold},
                {"encodings", EncodingCountsValue(o.encodings)},
                {"max_side", o.max_side},
                {"chunk_bytes", o.chunk_bytes},
                {"chunks", o.chunks},
                {"images_per_chunk", Object{{"mean", o.mean_images_per_chunk},
                                            {"min", o.min_images_per_chunk},
                                            {"max", o.max_images_per_chunk}}},
                {"height", SpreadValue(o.height)},
                {"width", SpreadValue(o.width)},
                {"gray_images", o.gray_images},
                {"aspect", Object{{"portrait", o.aspect.portrait},
                                  {"square", o.aspect.square},
                                  {"landscape", o.aspect.landscape}}},
                {"pixel_bytes", o.pixel_bytes},
                {"image_bytes", o.image_bytes},
                {"chunk_fill", o.chunk_fill},
                {"stored_bytes", o.stored_bytes},
                {"pixel_ratio", o.pixel_ratio}};
}

// A chunk's bytes before compression: C of an own-size file; K x H x W x C of a chunked file of
// one image size; 0 when the images are not chunked.
int64_t ChunkBytes(const FileSummary& s) {
  if (s.own_size) return s.own_size->chunk_bytes;
  return s.chunk_images * s.height * s.width * s.channels;
}

ReportValue ImagesValue(const FileSummary& s) {
  if (!s.has_images) return nullptr;
  return Object{{"dataset", s.images},
                {"layout", ToString(s.layout)},
                {"layout_guessed", s.layout_guessed},
                {"num_images", s.num_images},
                {"height", s.height},
                {"width", s.width},
                {"channels", s.channels},
                {"chunk_images", s.chunk_images},
                {"chunk_count", s.chunk_count},
                {"chunk_bytes", ChunkBytes(s)},
                {"compression", s.compression},
                {"compression_ratio", s.compression_ratio},
                {"own_size", s.own_size ? OwnSizeValue(*s.own_size) : nullptr}};
}

ReportValue LabelOrderValue(const std::optional<LabelOrder>& order) {
  if (!order) return nullptr;
  return Object{{"order", order->order},
                {"runs", order->runs},
                {"classes", order->classes},
                {"random_runs", order->random_runs}};
}

List FieldsValue(const std::vector<FieldSummary>& fields) {
  List list;
  for (const FieldSummary& f : fields) {
    list.push_back(Object{{"name", f.name},
                          {"kind", f.kind},
                          {"dtype", f.kind == "array" ? ReportValue(f.dtype) : ReportValue()},
                          {"shape", ListOf(f.shape)},
                          {"type", f.type},
                          {"stored_bytes", f.stored_bytes},
                          {"value_bytes", f.value_bytes},
                          {"storage", f.storage},
                          {"heap_bytes", f.heap_bytes}});
  }
  return list;
}

}  // namespace

ReportValue SummaryValue(const FileSummary& s) {
  List datasets;
  for (const DatasetSummary& d : s.datasets) {
    datasets.push_back(Object{{"name", d.name},
                              {"shape", ListOf(d.shape)},
                              {"dtype", d.dtype},
                              {"chunk_shape", ListOf(d.chunk_shape)},
                              {"filters", ListOf(d.filters)},
                              {"stored_bytes", d.stored_bytes},
                              {"logical_bytes", d.logical_bytes},
                              {"ratio", d.ratio},
                              {"heap_bytes", d.heap_bytes}});
  }
  // A name given twice keeps its last value, as a JSON object or a dict would.
  Object attributes;
  for (const AttributeText& a : s.attributes) {
    auto same = std::find_if(attributes.begin(), attributes.end(),
                             [&a](const auto& entry) { return entry.first == a.name; });
    if (same != attributes.end()) {
      same->second = a.value;
    } else {
      attributes.emplace_back(a.name, a.value);
    }
  }
  List classes;
  for (const ClassCount& c : s.classes)
    classes.push_back(Object{{"name", c.name}, {"count", c.count}});
  List box_classes;
  for (size_t c = 0; c < s.box_classes.names.size(); ++c) {
    box_classes.push_back(
        Object{{"name", s.box_classes.names[c]}, {"source_id", s.box_classes.source_ids[c]}});
  }
  ReportValue skipped = nullptr;
  if (s.has_skipped) {
    List entries;
    for (const SkippedSource& e : s.skipped) {
      entries.push_back(Object{{"source", e.source}, {"reason", e.reason}});
    }
    skipped = std::move(entries);
  }
  return Object{{"path", s.path},
                {"file_bytes", s.file_bytes},
                {"is_h5feed", s.is_h5feed},
                {"format_version", s.format_version},
                {"datasets", std::move(datasets)},
                {"attributes", std::move(attributes)},
                {"images", ImagesValue(s)},
                {"labels", s.labels.empty() ? ReportValue() : ReportValue(s.labels)},
                {"label_order", LabelOrderValue(s.label_order)},
                {"classes", std::move(classes)},
                {"skipped", std::move(skipped)},
                {"labelled", s.labelled},
                {"fields", FieldsValue(s.fields)},
                {"box_classes", std::move(box_classes)},
                {"notes", ListOf(s.notes)}};
}

}  // namespace h5feed
