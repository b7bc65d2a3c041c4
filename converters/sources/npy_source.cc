#include "sources/npy_source.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "path_role.h"
#include "sources/input_file.h"
#include "sources/npy_header.h"

namespace h5feed::converters {
namespace {

// More classes than this means the array holds ids, not class indices; "0".."max" would be
// millions of names nobody wants.
constexpr int64_t kMaxClasses = int64_t{1} << 20;

void CheckComplete(const InputFile& file, const NpyHeader& header) {
  int64_t needed = header.data_offset + header.data_bytes();
  if (static_cast<int64_t>(file.size()) < needed) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} is truncated: its header announces {} {} ({} bytes) but the file has {} bytes",
        file.path(), header.dtype.descr, header.ShapeText(), needed, file.size());
  }
}

ImageShape ImagesShape(const NpyHeader& header, const std::string& path) {
  const NpyDtype& dtype = header.dtype;
  if (!(dtype.kind == 'u' && dtype.item_bytes == 1)) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{} holds {} images; uint8 is needed (for float images in [0, 1]: (a * "
                    "255).round().astype(numpy.uint8))",
                    path, dtype.descr);
  }
  const std::vector<int64_t>& s = header.shape;
  bool rank_ok = s.size() == 3 || (s.size() == 4 && s[3] >= 1 && s[3] <= 4);
  if (!rank_ok) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} has shape {}; images must be (N, H, W, C) with C in 1..4 or (N, H, W). For NCHW data: "
        "a.transpose(0, 2, 3, 1)",
        path, header.ShapeText());
  }
  if (header.fortran_order) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{} is stored in Fortran order; save numpy.ascontiguousarray(a) instead", path);
  }
  ImageShape shape{s[1], s[2], s.size() == 4 ? s[3] : 1};
  if (shape.height == 0 || shape.width == 0) {
    throw MakeError(ErrorCode::kUnsupported, "{} has empty images: shape {}", path,
                    header.ShapeText());
  }
  return shape;
}

std::vector<int64_t> ReadLabels(const std::string& path, int64_t count) {
  InputFile file(path);
  NpyHeader header = ReadNpyHeader(file);
  const int64_t item_bytes = header.dtype.item_bytes;
  if (!header.dtype.is_integer() || item_bytes > 8 ||
      !std::has_single_bit(static_cast<uint64_t>(item_bytes))) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{} holds {} labels; labels must be integers (a.astype(numpy.int64))", path,
                    header.dtype.descr);
  }
  const std::vector<int64_t>& s = header.shape;
  bool shape_ok = s.size() == 1 || (s.size() == 2 && s[1] == 1);
  if (!shape_ok) {
    throw MakeError(ErrorCode::kUnsupported, "{} has shape {}; labels must be (N,) or (N, 1)", path,
                    header.ShapeText());
  }
  if (s[0] != count) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} holds {} labels for {} images; there must be one label per image", path,
                    s[0], count);
  }
  CheckComplete(file, header);
  std::vector<int64_t> labels(static_cast<size_t>(count));
  std::vector<uint8_t> bytes(static_cast<size_t>(header.data_bytes()));
  file.ReadAt(static_cast<uint64_t>(header.data_offset), bytes);
  const uint8_t* data = bytes.data();
  for (int64_t i = 0; i < count; ++i) {
    int64_t label = ReadNpyInteger(data + i * header.dtype.item_bytes, header.dtype);
    if (label < 0 || label >= kMaxClasses) {
      throw MakeError(ErrorCode::kCorrupt, "{}[{}] is {}; labels are class indices in [0, {})",
                      path, i, label, kMaxClasses);
    }
    labels[static_cast<size_t>(i)] = label;
  }
  return labels;
}

// Thread-safety: immutable after construction; Read() only reads the file.
class NpySource final : public SampleSource {
 public:
  NpySource(InputFile images, int64_t data_offset, int64_t count, ImageShape shape,
            std::vector<int64_t> labels, NpyFields fields)
      : images_(std::move(images)),
        name_(std::filesystem::path(images_.path()).filename().string()),
        data_offset_(data_offset),
        count_(count),
        shape_(shape),
        labels_(std::move(labels)),
        fields_(std::move(fields)) {
    int64_t max_label = 0;
    for (int64_t label : labels_) max_label = std::max(max_label, label);
    for (int64_t c = 0; c <= max_label; ++c) classes_.push_back(std::to_string(c));
  }

  std::string_view kind() const override { return "npy"; }
  int64_t count() const override { return count_; }
  ImageShape shape() const override { return shape_; }
  std::vector<std::string> classes() const override { return classes_; }
  std::vector<FieldSpec> fields() const override { return fields_.specs(); }
  std::string name(int64_t i) const override { return name_ + "#" + std::to_string(i); }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    if (i < 0 || i >= count_) {
      throw MakeError(ErrorCode::kInvalidArgument, "{}: row {} is out of range [0, {})",
                      images_.path(), i, count_);
    }
    images_.ReadAt(static_cast<uint64_t>(data_offset_ + i * shape_.bytes()),
                   dest.MemoryFor(shape_));
    SampleInfo info;
    info.label = labels_.empty() ? 0 : labels_[static_cast<size_t>(i)];
    info.source = name(i);
    info.fields = fields_.Read(i);
    return info;
  }

 private:
  InputFile images_;
  std::string name_;
  int64_t data_offset_;
  int64_t count_;
  ImageShape shape_;
  std::vector<int64_t> labels_;  // empty: every label is 0
  std::vector<std::string> classes_;
  NpyFields fields_;
};

}  // namespace

std::unique_ptr<SampleSource> OpenNpy(const std::string& images_path,
                                      const std::string& labels_path,
                                      const std::vector<NpyFieldFile>& fields) {
  std::optional<InputFile> images;
  NpyHeader header;
  ImageShape shape;
  InRole("images file", images_path, [&] {
    images.emplace(images_path);
    header = ReadNpyHeader(*images);
    shape = ImagesShape(header, images_path);
    CheckComplete(*images, header);
  });
  const int64_t count = header.shape[0];
  std::vector<int64_t> labels;
  if (!labels_path.empty()) {
    labels = InRole("labels file", labels_path, [&] { return ReadLabels(labels_path, count); });
  }
  NpyFields field_values(fields, count);
  return std::make_unique<NpySource>(std::move(*images), header.data_offset, count, shape,
                                     std::move(labels), std::move(field_values));
}

}  // namespace h5feed::converters
