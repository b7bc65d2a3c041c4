#include "inspect/file_summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/image_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "io/resource_limits.h"

namespace h5feed::inspect {
namespace {

namespace fs = std::filesystem;

// "(10, 8, 6, 3)", and "(5,)" for one dimension as Python writes it.
std::string Tuple(const std::vector<int64_t>& values) { return hdf5::ShapeText(values); }

std::string Bare(const std::string& name) {
  return !name.empty() && name.front() == '/' ? name.substr(1) : name;
}

DatasetSummary Summarize(hid_t file, const hdf5::DatasetEntry& entry, const std::string& path) {
  DatasetSummary d;
  d.name = Bare(entry.name);
  d.shape = entry.dims;
  d.dtype = entry.dtype;
  d.is_uint8 = entry.is_uint8;
  d.is_integer = entry.is_integer;
  d.is_string = entry.is_string;
  d.chunk_shape = entry.chunk;
  d.filters = entry.filters;
  d.stored_bytes = hdf5::StoredBytes(hdf5::OpenDataset(file, entry.name, path).get());
  if (entry.element_bytes > 0) {
    uint64_t elements = 1;
    for (int64_t n : d.shape) elements *= static_cast<uint64_t>(n);
    d.logical_bytes = elements * entry.element_bytes;
  }
  if (d.logical_bytes > 0 && d.stored_bytes > 0) {
    d.ratio = static_cast<double>(d.logical_bytes) / static_cast<double>(d.stored_bytes);
  }
  return d;
}

std::vector<int64_t> ReadIntegers(hid_t file, const std::string& name) {
  hdf5::Dataset dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  hdf5::Dataspace space(dataset ? H5Dget_space(dataset.get()) : H5I_INVALID_HID);
  hssize_t total = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (total < 0) throw hdf5::StackError(ErrorCode::kCorrupt, "opening dataset " + name, file);
  std::vector<int64_t> values(static_cast<size_t>(total));
  if (total > 0 &&
      H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading dataset " + name, file);
  }
  return values;
}

const DatasetSummary* FindByName(const std::vector<DatasetSummary>& datasets,
                                 std::string_view name) {
  for (const DatasetSummary& d : datasets) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

void SummarizeImages(const hdf5::ImageDataset& images, FileSummary& s) {
  const hdf5::DatasetEntry& d = images.dataset;
  s.has_images = true;
  s.images = Bare(d.name);
  s.layout = hdf5::ToString(images.layout);
  s.layout_guessed = images.layout_inferred;
  s.num_images = images.count;
  s.height = images.shape.height;
  s.width = images.shape.width;
  s.channels = images.shape.channels;
  if (!d.chunk.empty()) {
    s.chunk_images = d.chunk[0];
    s.chunk_count = 1;
    for (size_t i = 0; i < d.dims.size(); ++i) {
      const int64_t c = d.chunk[i];
      s.chunk_count *= c > 0 ? (d.dims[i] + c - 1) / c : 0;
    }
  }
  std::string compression;
  for (const std::string& filter : d.filters) {
    compression += (compression.empty() ? "" : "+") + filter;
  }
  s.compression = compression.empty() ? "none" : compression;
  if (const DatasetSummary* summary = FindByName(s.datasets, s.images)) {
    s.compression_ratio = summary->ratio;
  }
  if (images.layout == hdf5::ImageLayout::kNHW) {
    s.notes.push_back("images of shape " + Tuple(d.dims) +
                      " are grayscale (N, H, W): read as H x W x 1");
  } else if (s.layout_guessed) {
    s.notes.push_back("layout " + s.layout + " inferred from the shape " + Tuple(d.dims));
  }
}

void SummarizeClasses(hid_t file, FileSummary& s) {
  std::vector<std::string> names;
  const DatasetSummary* classes = FindByName(s.datasets, schema::kClasses);
  if (classes != nullptr && classes->is_string && classes->shape.size() == 1) {
    limits::CheckClassCount(classes->shape[0], "dataset " + classes->name + " in " + s.path);
    names = hdf5::ReadStringDataset(file, classes->name.c_str());
  }
  const DatasetSummary* labels = FindByName(s.datasets, schema::kLabels);
  std::vector<int64_t> counts;
  bool column = labels != nullptr &&
                (labels->shape.size() == 1 || (labels->shape.size() == 2 && labels->shape[1] == 1));
  if (labels != nullptr && labels->is_integer && column) {
    s.labels = labels->name;
    if (s.has_images && labels->shape[0] != s.num_images) {
      s.notes.push_back("labels holds " + std::to_string(labels->shape[0]) + " labels for " +
                        std::to_string(s.num_images) + " images");
    }
    limits::CheckRowCount(labels->shape[0], "dataset " + labels->name + " in " + s.path);
    int64_t out_of_range = 0;
    const std::vector<int64_t> values = ReadIntegers(file, labels->name);
    s.label_order = DescribeLabelOrder(values);
    if (s.label_order && s.label_order->InRuns()) {
      s.notes.push_back("the rows are stored " + s.label_order->Describe() +
                        ": batches of chunks:W and quasi:W hold few classes unless W is large "
                        "(the loader warns when so); h5feed rechunk " + s.path +
                        " OUT.h5 --seed 0 writes a shuffled copy");
    }
    for (int64_t label : values) {
      bool known = label >= 0 && (names.empty() || label < static_cast<int64_t>(names.size()));
      // Without names, classes are "0".."max": cap the table at a million rows.
      if (!known || label >= (int64_t{1} << 20)) {
        ++out_of_range;
        continue;
      }
      if (label >= static_cast<int64_t>(counts.size())) {
        counts.resize(static_cast<size_t>(label) + 1);
      }
      ++counts[static_cast<size_t>(label)];
    }
    if (out_of_range > 0) {
      s.notes.push_back(std::to_string(out_of_range) + " labels are outside the " +
                        std::to_string(names.empty() ? counts.size() : names.size()) + " classes");
    }
  } else if (labels != nullptr) {
    s.notes.push_back("dataset labels " + labels->ShapeText() + " " + labels->dtype +
                      " is not an integer dataset of shape (N,): ignored");
  }
  size_t count = std::max(names.size(), counts.size());
  for (size_t i = 0; i < count; ++i) {
    s.classes.push_back(
        {i < names.size() ? names[i] : std::to_string(i), i < counts.size() ? counts[i] : 0});
  }
}

void SummarizeSkipped(hid_t file, FileSummary& s) {
  const DatasetSummary* sources = FindByName(s.datasets, schema::kSkippedSources);
  const DatasetSummary* reasons = FindByName(s.datasets, schema::kSkippedReasons);
  if (sources == nullptr || !sources->is_string) return;
  s.has_skipped = true;
  std::vector<std::string> paths = hdf5::ReadStringDataset(file, sources->name.c_str());
  std::vector<std::string> why;
  if (reasons != nullptr && reasons->is_string) {
    why = hdf5::ReadStringDataset(file, reasons->name.c_str());
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    s.skipped.push_back({paths[i], i < why.size() ? why[i] : ""});
  }
}

void AddFormatNotes(FileSummary& s) {
  if (s.is_h5feed) {
    if (s.format_version > schema::kFormatVersion) {
      s.notes.push_back("written in h5feed format version " + std::to_string(s.format_version) +
                        "; this h5feed reads version " + std::to_string(schema::kFormatVersion) +
                        ": upgrade h5feed");
    }
    return;
  }
  std::string name = fs::path(s.path).filename().string();
  if (name.find(".partial-") != std::string::npos) {
    s.notes.push_back(
        "an unfinished h5feed conversion (a temporary file): it is not usable; "
        "delete it and convert again");
  } else if (s.has_images) {
    s.notes.push_back("no h5feed attributes: a foreign HDF5 file; h5feed rechunk converts it");
  }
}

}  // namespace

std::string DatasetSummary::ShapeText() const { return Tuple(shape); }

std::string DatasetSummary::Describe() const {
  std::string text = name + " " + dtype + " " + ShapeText();
  if (!chunk_shape.empty()) text += " chunks " + Tuple(chunk_shape);
  for (const std::string& filter : filters) text += " " + filter;
  return text;
}

FileSummary SummarizeFile(const std::string& path) {
  FileSummary s;
  s.path = path;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  // Reading needs no lock on file systems without locking (NFS, Lustre): kAuto falls back.
  hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(path, FileLocking::kAuto);
  const hdf5::File& file = opened.file;
  std::error_code ec;
  s.file_bytes = fs::file_size(path, ec);
  if (!opened.note.empty()) s.notes.push_back(opened.note);

  const std::vector<hdf5::DatasetEntry> entries = hdf5::ListDatasets(file.get(), path);
  for (const hdf5::DatasetEntry& entry : entries) {
    s.datasets.push_back(Summarize(file.get(), entry, path));
  }
  s.attributes = hdf5::ReadAllAttributesText(file.get());
  s.is_h5feed = hdf5::ReadAttributeText(file.get(), schema::kAttrFormat) == schema::kFormatName;
  if (s.is_h5feed) {
    std::string version = hdf5::ReadAttributeText(file.get(), schema::kAttrFormatVersion);
    s.format_version = static_cast<int32_t>(std::strtol(version.c_str(), nullptr, 10));
  }
  // What the loader, rechunk and verify would take as images (hdf5/image_dataset.h). A summary
  // reports what it finds rather than refusing the file: a problem becomes a note.
  const hdf5::ImageDatasetChoice images = hdf5::ChooseImageDataset(file.get(), entries, "", path);
  if (images.images) SummarizeImages(*images.images, s);
  if (images.problem) {
    s.notes.push_back(std::string(images.problem->what()) +
                      (images.images ? " (the loader and h5feed rechunk refuse it)" : ""));
  }
  SummarizeClasses(file.get(), s);
  SummarizeSkipped(file.get(), s);
  AddFormatNotes(s);
  return s;
}

std::string ToJson(const FileSummary& s) {
  // Keys in the order of FileSummary (nlohmann's default json sorts them).
  using json = nlohmann::ordered_json;
  json datasets = json::array();
  for (const DatasetSummary& d : s.datasets) {
    datasets.push_back({{"name", d.name},
                        {"shape", d.shape},
                        {"dtype", d.dtype},
                        {"chunk_shape", d.chunk_shape},
                        {"filters", d.filters},
                        {"stored_bytes", d.stored_bytes},
                        {"logical_bytes", d.logical_bytes},
                        {"ratio", d.ratio}});
  }
  json attributes = json::object();
  for (const AttributeText& a : s.attributes) attributes[a.name] = a.value;
  json out = {{"path", s.path},           {"file_bytes", s.file_bytes},
              {"is_h5feed", s.is_h5feed}, {"format_version", s.format_version},
              {"datasets", datasets},     {"attributes", attributes}};
  if (s.has_images) {
    out["images"] = {{"dataset", s.images},
                     {"layout", s.layout},
                     {"layout_guessed", s.layout_guessed},
                     {"num_images", s.num_images},
                     {"height", s.height},
                     {"width", s.width},
                     {"channels", s.channels},
                     {"chunk_images", s.chunk_images},
                     {"chunk_count", s.chunk_count},
                     {"compression", s.compression},
                     {"compression_ratio", s.compression_ratio}};
  } else {
    out["images"] = nullptr;
  }
  out["labels"] = s.labels.empty() ? json(nullptr) : json(s.labels);
  if (s.label_order) {
    out["label_order"] = {{"order", s.label_order->order},
                          {"runs", s.label_order->runs},
                          {"classes", s.label_order->classes},
                          {"random_runs", s.label_order->random_runs}};
  } else {
    out["label_order"] = nullptr;
  }
  json classes = json::array();
  for (const ClassCount& c : s.classes) classes.push_back({{"name", c.name}, {"count", c.count}});
  out["classes"] = classes;
  if (s.has_skipped) {
    json skipped = json::array();
    for (const SkippedEntry& e : s.skipped) {
      skipped.push_back({{"source", e.source}, {"reason", e.reason}});
    }
    out["skipped"] = skipped;
  } else {
    out["skipped"] = nullptr;
  }
  out["notes"] = s.notes;
  // Source names and class names need not be valid UTF-8 (fixed-length strings from h5py
  // may hold anything): replace bad bytes instead of throwing.
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

std::string Bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buffer;
}

std::string Fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
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

std::string ToText(const FileSummary& s) {
  std::string t;
  auto line = [&t](const std::string& label, const std::string& value) {
    t += value.empty()
             ? label + "\n"
             : label + std::string(label.size() < 13 ? 13 - label.size() : 1, ' ') + value + "\n";
  };
  line("file", s.path + " (" + Bytes(s.file_bytes) + ")");
  line("format", s.is_h5feed ? "h5feed version " + std::to_string(s.format_version)
                             : "HDF5 (not written by h5feed)");
  if (s.has_images) {
    line("images", s.images + ": " + std::to_string(s.num_images) + " images of " +
                       std::to_string(s.height) + "x" + std::to_string(s.width) + "x" +
                       std::to_string(s.channels) + " (HxWxC), layout " + s.layout +
                       (s.layout_guessed ? " (inferred)" : ""));
    const DatasetSummary* images = FindByName(s.datasets, s.images);
    if (s.chunk_images > 0) {
      uint64_t chunk_bytes =
          static_cast<uint64_t>(s.chunk_images * s.height * s.width * s.channels);
      line("chunks", std::to_string(s.chunk_count) + " chunks of " +
                         std::to_string(s.chunk_images) + " images (" + Bytes(chunk_bytes) +
                         " uncompressed)" +
                         (images != nullptr ? ", chunk shape " + Tuple(images->chunk_shape) : ""));
    } else {
      line("chunks", "none (contiguous storage)");
    }
    std::string ratio = s.compression_ratio > 0
                            ? ", ratio " + Fixed(s.compression_ratio, 2) + " (" +
                                  Bytes(images ? images->stored_bytes : 0) + " stored)"
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
                            " classes (a random order has about " +
                            Fixed(order->random_runs, 0) + ")");
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
    t += "  " + d.Describe() + ", " + Bytes(d.stored_bytes) + " stored";
    if (d.ratio > 0 && (d.ratio < 0.995 || d.ratio > 1.005)) t += ", ratio " + Fixed(d.ratio, 2);
    t += "\n";
  }
  for (const std::string& note : s.notes) t += "note: " + note + "\n";
  return t;
}

}  // namespace h5feed::inspect
