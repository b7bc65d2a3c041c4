// FileSummaryDict (file_summary_dict.h).

#include "file_summary_dict.h"

#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace h5feed::python {
namespace {

py::str Text(const std::string& text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::list TextList(const std::vector<std::string>& texts) {
  py::list list;
  for (const std::string& text : texts) list.append(Text(text));
  return list;
}

py::list NumberList(const std::vector<int64_t>& numbers) {
  py::list list;
  for (int64_t n : numbers) list.append(n);
  return list;
}

py::object TextOrNone(const std::string& text) {
  return text.empty() ? py::object(py::none()) : py::object(Text(text));
}

py::dict Spread(const SizeSpread& spread) {
  py::dict d;
  d["min"] = spread.min;
  d["median"] = spread.median;
  d["max"] = spread.max;
  return d;
}

py::dict OwnSize(const OwnSizeSummary& o) {
  py::dict d;
  d["encoding"] = Text(o.encoding);
  d["smart_threshold"] = o.smart_threshold;
  d["raw_images"] = o.raw_images;
  d["jpeg_images"] = o.jpeg_images;
  d["max_side"] = o.max_side;
  d["chunk_bytes"] = o.chunk_bytes;
  d["chunks"] = o.chunks;
  py::dict per_chunk;
  per_chunk["mean"] = o.mean_images_per_chunk;
  per_chunk["min"] = o.min_images_per_chunk;
  per_chunk["max"] = o.max_images_per_chunk;
  d["images_per_chunk"] = per_chunk;
  d["height"] = Spread(o.height);
  d["width"] = Spread(o.width);
  d["gray_images"] = o.gray_images;
  py::dict aspect;
  aspect["portrait"] = o.aspect.portrait;
  aspect["square"] = o.aspect.square;
  aspect["landscape"] = o.aspect.landscape;
  d["aspect"] = aspect;
  d["pixel_bytes"] = o.pixel_bytes;
  d["image_bytes"] = o.image_bytes;
  d["chunk_fill"] = o.chunk_fill;
  d["stored_bytes"] = o.stored_bytes;
  d["pixel_ratio"] = o.pixel_ratio;
  return d;
}

py::dict Images(const FileSummary& s) {
  py::dict d;
  d["dataset"] = Text(s.images);
  d["layout"] = Text(std::string(ToString(s.layout)));
  d["layout_guessed"] = s.layout_guessed;
  d["num_images"] = s.num_images;
  d["height"] = s.height;
  d["width"] = s.width;
  d["channels"] = s.channels;
  d["chunk_images"] = s.chunk_images;
  d["chunk_count"] = s.chunk_count;
  d["compression"] = Text(s.compression);
  d["compression_ratio"] = s.compression_ratio;
  d["own_size"] = s.own_size ? py::object(OwnSize(*s.own_size)) : py::object(py::none());
  return d;
}

py::dict Order(const LabelOrder& order) {
  py::dict d;
  d["order"] = Text(order.order);
  d["runs"] = order.runs;
  d["classes"] = order.classes;
  d["random_runs"] = order.random_runs;
  return d;
}

}  // namespace

py::dict FileSummaryDict(const FileSummary& s) {
  py::dict out;
  out["path"] = Text(s.path);
  out["file_bytes"] = s.file_bytes;
  out["is_h5feed"] = s.is_h5feed;
  out["format_version"] = s.format_version;
  py::list datasets;
  for (const DatasetSummary& d : s.datasets) {
    py::dict dataset;
    dataset["name"] = Text(d.name);
    dataset["shape"] = NumberList(d.shape);
    dataset["dtype"] = Text(d.dtype);
    dataset["chunk_shape"] = NumberList(d.chunk_shape);
    dataset["filters"] = TextList(d.filters);
    dataset["stored_bytes"] = d.stored_bytes;
    dataset["logical_bytes"] = d.logical_bytes;
    dataset["ratio"] = d.ratio;
    datasets.append(dataset);
  }
  out["datasets"] = datasets;
  py::dict attributes;
  for (const AttributeText& a : s.attributes) attributes[Text(a.name)] = Text(a.value);
  out["attributes"] = attributes;
  out["images"] = s.has_images ? py::object(Images(s)) : py::object(py::none());
  out["labels"] = TextOrNone(s.labels);
  out["label_order"] = s.label_order ? py::object(Order(*s.label_order)) : py::object(py::none());
  py::list classes;
  for (const ClassCount& c : s.classes) {
    py::dict entry;
    entry["name"] = Text(c.name);
    entry["count"] = c.count;
    classes.append(entry);
  }
  out["classes"] = classes;
  if (s.has_skipped) {
    py::list skipped;
    for (const SkippedSource& e : s.skipped) {
      py::dict entry;
      entry["source"] = Text(e.source);
      entry["reason"] = Text(e.reason);
      skipped.append(entry);
    }
    out["skipped"] = skipped;
  } else {
    out["skipped"] = py::none();
  }
  out["notes"] = TextList(s.notes);
  return out;
}

}  // namespace h5feed::python
