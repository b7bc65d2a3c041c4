#include "format/file_summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "format/chunk_index_dataset.h"
#include "format/hdf5_error.h"
#include "format/hdf5_mutex.h"
#include "format/hdf5_strings.h"
#include "format/read_only_open.h"
#include "format/resource_limits.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "remote/location.h"

namespace h5feed {
namespace {

namespace fs = std::filesystem;

// Renders at most this many elements of an array attribute; the rest is counted.
constexpr hssize_t kMaxAttributeElements = 16;

// "(10, 8, 6, 3)", and "(5,)" for one dimension as Python writes it.
std::string Tuple(const std::vector<int64_t>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

// H5Ovisit's operator: collects every dataset's name.
herr_t CollectDataset(hid_t, const char* name, const H5O_info_t* info, void* data) {
  if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

std::string TypeName(hid_t type) {
  size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      std::string name =
          (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
      if (size > 1 && H5Tget_order(type) == H5T_ORDER_BE) name += " (big-endian)";
      return name;
    }
    case H5T_FLOAT:
      return "float" + std::to_string(8 * size);
    case H5T_STRING:
      return H5Tis_variable_str(type) > 0 ? "string" : "string[" + std::to_string(size) + "]";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum";
    case H5T_VLEN:
      return "vlen";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

std::string FilterName(H5Z_filter_t id, const unsigned* cd_values, size_t cd_count,
                       const char* hdf5_name) {
  switch (id) {
    case H5Z_FILTER_DEFLATE:
      return cd_count > 0 ? "gzip:" + std::to_string(cd_values[0]) : "gzip";
    case schema::kZstdFilterId:
      return cd_count > 0 ? "zstd:" + std::to_string(cd_values[0]) : "zstd";
    case H5Z_FILTER_SHUFFLE:
      return "shuffle";
    case H5Z_FILTER_FLETCHER32:
      return "fletcher32";
    case H5Z_FILTER_SZIP:
      return "szip";
    case H5Z_FILTER_NBIT:
      return "nbit";
    case H5Z_FILTER_SCALEOFFSET:
      return "scaleoffset";
    case 32000:
      return "lzf";  // h5py's own filter
    case 32001:
      return "blosc";
    case 32004:
      return "lz4";
    case 32008:
      return "bitshuffle";
    default:
      return hdf5_name[0] != '\0' ? std::string(hdf5_name) + " (filter " + std::to_string(id) + ")"
                                  : "filter " + std::to_string(id);
  }
}

DatasetSummary DescribeDataset(hid_t file, const std::string& name, bool chunked_storage) {
  DatasetSummary d;
  d.name = name;
  hdf5::Dataset dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!dataset) throw hdf5::StackError(ErrorCode::kCorrupt, "opening dataset " + name, file);
  hdf5::Dataspace space(H5Dget_space(dataset.get()));
  int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading the shape of dataset " + name, file);
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  d.shape.assign(dims.begin(), dims.end());

  hdf5::Datatype type(H5Dget_type(dataset.get()));
  if (!type) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading the type of dataset " + name, file);
  }
  H5T_class_t type_class = H5Tget_class(type.get());
  size_t type_size = H5Tget_size(type.get());
  d.dtype = TypeName(type.get());
  d.is_integer = type_class == H5T_INTEGER;
  d.is_uint8 = d.is_integer && type_size == 1 && H5Tget_sign(type.get()) == H5T_SGN_NONE;
  d.is_string = type_class == H5T_STRING;

  hdf5::PropertyList dcpl(H5Dget_create_plist(dataset.get()));
  if (dcpl && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(static_cast<size_t>(rank));
    if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) == rank) {
      d.chunk_shape.assign(chunk.begin(), chunk.end());
    }
  }
  int filters = dcpl ? H5Pget_nfilters(dcpl.get()) : 0;
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, config = 0;
    unsigned cd_values[8] = {};
    size_t cd_count = 8;
    char hdf5_name[64] = {};
    H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &cd_count,
                                     cd_values, sizeof(hdf5_name), hdf5_name, &config);
    d.filters.push_back(FilterName(id, cd_values, std::min<size_t>(cd_count, 8), hdf5_name));
  }

  // A chunked dataset's storage size walks its whole chunk index (one round trip per block of
  // it for a remote file).
  if (chunked_storage || d.chunk_shape.empty()) d.stored_bytes = H5Dget_storage_size(dataset.get());
  bool variable = type_class == H5T_VLEN || H5Tis_variable_str(type.get()) > 0;
  if (!variable) {
    uint64_t elements = 1;
    for (int64_t n : d.shape) elements *= static_cast<uint64_t>(n);
    d.logical_bytes = elements * type_size;
  }
  if (d.logical_bytes > 0 && d.stored_bytes > 0) {
    d.ratio = static_cast<double>(d.logical_bytes) / static_cast<double>(d.stored_bytes);
  }
  return d;
}

// An attribute's values as text: one value alone, several as "[a, b, ...]".
template <typename T>
std::string Join(const std::vector<T>& values, hssize_t total) {
  auto render = [](const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return v;
    } else {
      return std::to_string(v);
    }
  };
  if (total == 1 && values.size() == 1) return render(values[0]);
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + render(values[i]);
  if (total > static_cast<hssize_t>(values.size())) {
    text += ", ... (" + std::to_string(total) + " values)";
  }
  return text + "]";
}

std::string RenderAttribute(hid_t attribute) {
  hdf5::Datatype type(H5Aget_type(attribute));
  hdf5::Dataspace space(H5Aget_space(attribute));
  if (!type || !space) return "<unreadable>";
  hssize_t total = H5Sget_simple_extent_npoints(space.get());
  if (total <= 0) return "[]";
  if (total > kMaxAttributeElements) {
    return TypeName(type.get()) + " array of " + std::to_string(total) + " values";
  }
  size_t n = static_cast<size_t>(total);
  switch (H5Tget_class(type.get())) {
    case H5T_INTEGER: {
      if (H5Tget_sign(type.get()) == H5T_SGN_NONE) {
        std::vector<uint64_t> values(n);
        if (H5Aread(attribute, H5T_NATIVE_UINT64, values.data()) < 0) return "<unreadable>";
        return Join(values, total);
      }
      std::vector<int64_t> values(n);
      if (H5Aread(attribute, H5T_NATIVE_INT64, values.data()) < 0) return "<unreadable>";
      return Join(values, total);
    }
    case H5T_FLOAT: {
      std::vector<double> values(n);
      if (H5Aread(attribute, H5T_NATIVE_DOUBLE, values.data()) < 0) return "<unreadable>";
      std::vector<std::string> texts;
      for (double v : values) {
        char buffer[32];
        std::snprintf(buffer, sizeof(buffer), "%.9g", v);
        texts.emplace_back(buffer);
      }
      return Join(texts, total);
    }
    case H5T_STRING: {
      std::vector<std::string> texts;
      bool read = hdf5::ReadStrings(type.get(), space.get(), texts, [&](hid_t memory, hid_t, void* out) {
        return H5Aread(attribute, memory, out);
      });
      if (!read) return "<unreadable>";
      return Join(texts, total);
    }
    default:
      return TypeName(type.get()) + " value";
  }
}

herr_t CollectAttribute(hid_t object, const char* name, const H5A_info_t*, void* data) {
  hdf5::Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  std::string value = attribute ? RenderAttribute(attribute.get()) : "<unreadable>";
  static_cast<std::vector<AttributeText>*>(data)->push_back({name, value});
  return 0;
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

void SummarizeImages(hid_t file, const DatasetSummary& images, FileSummary& s) {
  s.has_images = true;
  s.images = images.name;
  std::string declared = DeclaredLayout(file, images.name);
  try {
    s.layout = DetectLayout(images.shape, declared);
  } catch (const Error&) {
    // A summary reports what it finds rather than refusing the file (rechunk refuses it).
    s.notes.push_back("layout attribute '" + declared + "' is neither NHWC nor NCHW: ignored");
    declared.clear();
    s.layout = DetectLayout(images.shape, declared);
  }
  s.layout_guessed = declared.empty();
  const std::vector<int64_t>& shape = images.shape;
  bool nchw = s.layout == "NCHW";
  s.num_images = shape[0];
  s.channels = nchw ? shape[1] : shape[3];
  s.height = nchw ? shape[2] : shape[1];
  s.width = nchw ? shape[3] : shape[2];
  if (!images.chunk_shape.empty()) {
    s.chunk_images = images.chunk_shape[0];
    s.chunk_count = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t c = images.chunk_shape[i];
      s.chunk_count *= c > 0 ? (shape[i] + c - 1) / c : 0;
    }
  }
  std::string compression;
  for (const std::string& filter : images.filters) {
    compression += (compression.empty() ? "" : "+") + filter;
  }
  s.compression = compression.empty() ? "none" : compression;
  s.compression_ratio = images.ratio;
  if (s.layout_guessed) {
    s.notes.push_back("layout " + s.layout + " inferred from the shape " + images.ShapeText() +
                      " (no layout attribute)");
  }
}

// A remote file's chunked datasets have no storage size (ListDatasets skipped it): an h5feed
// file's /images has it from its chunk table, one read.
void StoredBytesFromTable(hid_t file, FileSummary& s) {
  DatasetSummary* images = nullptr;
  for (DatasetSummary& d : s.datasets) {
    if (d.name == schema::kImages) images = &d;
  }
  if (!s.is_h5feed || images == nullptr || images->chunk_shape.empty()) return;
  try {
    images->stored_bytes = 0;
    for (const schema::ChunkRecord& r : hdf5::ReadChunkIndex(file)) images->stored_bytes += r.stored_bytes;
  } catch (const Error&) {
    images->stored_bytes = 0;  // a damaged table: no ratio (verify says what is wrong)
  }
  if (images->logical_bytes > 0 && images->stored_bytes > 0) {
    images->ratio = static_cast<double>(images->logical_bytes) / static_cast<double>(images->stored_bytes);
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
    for (int64_t label : ReadIntegers(file, labels->name)) {
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
  if (!s.has_images) {
    int candidates = 0;
    for (const DatasetSummary& d : s.datasets) candidates += d.is_uint8 && d.shape.size() == 4;
    s.notes.push_back(candidates > 1
                          ? "several 4-D uint8 datasets and none named images: name one with "
                            "h5feed rechunk --images NAME"
                          : "no 4-D uint8 image dataset: h5feed cannot take images from this file");
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

std::vector<DatasetSummary> ListDatasets(hid_t file, bool chunked_storage) {
  std::vector<std::string> names;
  if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, CollectDataset, &names, H5O_INFO_BASIC) < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "listing the datasets", file);
  }
  std::vector<DatasetSummary> datasets;
  for (const std::string& name : names) {
    datasets.push_back(DescribeDataset(file, name, chunked_storage));
  }
  return datasets;
}

const DatasetSummary* FindImageDataset(const std::vector<DatasetSummary>& datasets) {
  auto is_images = [](const DatasetSummary& d) { return d.is_uint8 && d.shape.size() == 4; };
  const DatasetSummary* named = FindByName(datasets, schema::kImages);
  if (named != nullptr && is_images(*named)) return named;
  const DatasetSummary* only = nullptr;
  for (const DatasetSummary& d : datasets) {
    if (!is_images(d)) continue;
    if (only != nullptr) return nullptr;
    only = &d;
  }
  return only;
}

std::string DetectLayout(std::span<const int64_t> shape, std::string_view declared) {
  if (!declared.empty()) {
    std::string upper(declared);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "NHWC" || upper == "NCHW") return upper;
    throw Error(ErrorCode::kUnsupported,
                "layout attribute '" + std::string(declared) + "': NHWC or NCHW expected");
  }
  auto is_channels = [](int64_t n) { return n == 1 || n == 3 || n == 4; };
  return shape.size() == 4 && is_channels(shape[1]) && !is_channels(shape[3]) ? "NCHW" : "NHWC";
}

std::string DeclaredLayout(hid_t file, const std::string& images) {
  hdf5::SilenceErrors silence;
  hdf5::Dataset dataset(H5Dopen2(file, images.c_str(), H5P_DEFAULT));
  std::string declared = dataset ? ReadAttributeText(dataset.get(), schema::kAttrLayout) : "";
  return declared.empty() ? ReadAttributeText(file, schema::kAttrLayout) : declared;
}

std::string ReadAttributeText(hid_t object, const char* name) {
  hdf5::SilenceErrors silence;
  if (H5Aexists(object, name) <= 0) return "";
  hdf5::Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  return attribute ? RenderAttribute(attribute.get()) : "";
}

FileSummary SummarizeFile(const std::string& path, const RemoteOptions& remote) {
  const bool local = !IsRemoteLocation(path);
  std::error_code ec;
  if (local && !fs::exists(path, ec)) throw Error(ErrorCode::kNotFound, path + " does not exist");
  if (local && !fs::is_regular_file(path, ec)) {
    throw Error(ErrorCode::kInvalidArgument, path + " is not a regular file");
  }
  FileSummary s;
  s.path = remote::DisplayName(path);

  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  if (local) {
    htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    if (is_hdf5 < 0)
      throw Error(ErrorCode::kIo, "cannot read " + path + ": " + hdf5::ErrorStackText());
    if (is_hdf5 == 0) throw Error(ErrorCode::kCorrupt, path + " is not an HDF5 file");
  }
  // Reading needs no lock on file systems without locking (NFS, Lustre): kAuto falls back.
  hdf5::ReadOnlyFile opened =
      hdf5::OpenReadOnlyFile(path, FileLocking::kAuto, remote::RemoteOpen{remote, ""});
  const hdf5::File& file = opened.file;
  s.file_bytes = opened.bytes;
  if (!opened.note.empty()) s.notes.push_back(opened.note);

  s.datasets = ListDatasets(file.get(), local);
  H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, CollectAttribute, &s.attributes);
  s.is_h5feed = ReadAttributeText(file.get(), schema::kAttrFormat) == schema::kFormatName;
  if (s.is_h5feed) {
    std::string version = ReadAttributeText(file.get(), schema::kAttrFormatVersion);
    s.format_version = static_cast<int32_t>(std::strtol(version.c_str(), nullptr, 10));
  }
  if (!local) StoredBytesFromTable(file.get(), s);
  if (const DatasetSummary* images = FindImageDataset(s.datasets)) {
    SummarizeImages(file.get(), *images, s);
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

}  // namespace h5feed
