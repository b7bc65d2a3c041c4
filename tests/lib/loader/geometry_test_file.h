#pragma once
// Files with a mask and boxes for the geometric field tests (docs/augment.md, "Masks and boxes
// follow the image's geometry"): coordinate images, pixel (y, x) of every row R = x, G = y,
// B = row % 256, and a uint16 mask that says the same, y * 256 + x, so that a delivered mask
// pixel names the stored pixel it shows and the delivered image says (to its bilinear
// rounding) the same place. Row r has r % 4 boxes (GeometryBoxes) with classes 10 r + k, and,
// when asked, the per-box values `box_ids` (int32, 1000 r + k: the row and the box they belong
// to, GeometryBoxIds).
// Of one image size (60 x 80, chunks of 8) or of images at their own size (OwnSizeShape, raw,
// chunks of 64 KiB; `all_one_size`: each of 60 x 80 all the same, which the loader reads as a
// file of one size is read), zstd. A uint8 mask (for the kernels' other element type) holds the
// same values modulo 251, which names no pixel but tells rows and columns apart.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/loader_options.h"
#include "h5feed/writer.h"
#include "lib/loader/test_files.h"

namespace h5feed::testing {

inline constexpr ImageShape kGeometryShape = {60, 80, 3};

inline ImageShape GeometryShape(int64_t row, bool own_size, bool all_one_size = false) {
  return own_size && !all_one_size ? OwnSizeShape(row) : kGeometryShape;
}

inline std::vector<uint8_t> CoordinateImage(int64_t row, const ImageShape& shape) {
  std::vector<uint8_t> image;
  for (int64_t y = 0; y < shape.height; ++y) {
    for (int64_t x = 0; x < shape.width; ++x) {
      image.insert(image.end(), {static_cast<uint8_t>(x), static_cast<uint8_t>(y),
                                 static_cast<uint8_t>(row & 0xff)});
    }
  }
  return image;
}

inline std::vector<uint16_t> CoordinateMask(const ImageShape& shape) {
  std::vector<uint16_t> mask;
  for (int64_t y = 0; y < shape.height; ++y) {
    for (int64_t x = 0; x < shape.width; ++x) mask.push_back(static_cast<uint16_t>(y * 256 + x));
  }
  return mask;
}

// Row r's boxes, xyxy: inside, across the border and small ones, r % 4 of them.
inline std::vector<float> GeometryBoxes(int64_t row, const ImageShape& shape) {
  const auto w = static_cast<float>(shape.width);
  const auto h = static_cast<float>(shape.height);
  const float all[4][4] = {
      {2.5f, 3.0f, w / 2, h / 2},
      {w / 3, h / 4, w - 1.25f, h - 0.5f},
      {w - 6.0f, 1.0f, w, 4.5f},
      {static_cast<float>(row % 7), 10.0f, static_cast<float>(row % 7) + 2.0f, h}};
  std::vector<float> boxes;
  for (int64_t k = 0; k < row % 4; ++k) boxes.insert(boxes.end(), all[k], all[k] + 4);
  return boxes;
}

inline std::vector<int64_t> GeometryBoxLabels(int64_t row) {
  std::vector<int64_t> labels;
  for (int64_t k = 0; k < row % 4; ++k) labels.push_back(10 * row + k);
  return labels;
}

inline std::vector<int32_t> GeometryBoxIds(int64_t row) {
  std::vector<int32_t> ids;
  for (int64_t k = 0; k < row % 4; ++k) ids.push_back(static_cast<int32_t>(1000 * row + k));
  return ids;
}

template <typename T>
std::span<const uint8_t> BytesOf(const std::vector<T>& values) {
  return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)};
}

inline std::vector<FieldSpec> GeometryFieldSpecs(bool own_size,
                                                 FieldType mask_type = FieldType::kUint16,
                                                 bool box_values = false) {
  FieldSpec mask{"mask", FieldKind::kMask, mask_type, {}, {}};
  if (!own_size) mask.shape = {kGeometryShape.height, kGeometryShape.width};
  FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  FieldSpec labels{"box_labels", FieldKind::kBoxLabels, FieldType::kInt64, {}, {}};
  labels.boxes = "boxes";
  if (!box_values) return {mask, boxes, labels};
  return {mask, boxes, labels,
          FieldSpec{"box_ids", FieldKind::kBoxValues, FieldType::kInt32, {}, "boxes"}};
}

inline std::vector<FieldColumn> GeometryColumns(int64_t first, int64_t rows, bool own_size,
                                                FieldType mask_type = FieldType::kUint16,
                                                bool all_one_size = false,
                                                bool box_values = false) {
  std::vector<FieldColumn> columns(box_values ? 4 : 3);
  for (int64_t r = first; r < first + rows; ++r) {
    const ImageShape shape = GeometryShape(r, own_size, all_one_size);
    const std::vector<uint16_t> mask = CoordinateMask(shape);
    if (mask_type == FieldType::kUint8) {
      std::vector<uint8_t> values;
      for (const uint16_t value : mask) values.push_back(static_cast<uint8_t>(value % 251));
      columns[0].Append(BytesOf(values));
    } else {
      columns[0].Append(BytesOf(mask));
    }
    columns[1].Append(BytesOf(GeometryBoxes(r, shape)));
    columns[2].Append(BytesOf(GeometryBoxLabels(r)));
    if (box_values) columns[3].Append(BytesOf(GeometryBoxIds(r)));
  }
  return columns;
}

inline void WriteGeometryTestFile(const std::string& path, int64_t samples, bool own_size,
                                  FieldType mask_type = FieldType::kUint16,
                                  const std::string& compression = "zstd",
                                  bool all_one_size = false, bool box_values = false) {
  WriterOptions options;
  options.compression = Compression::Parse(compression);
  options.overwrite = true;
  options.fields = GeometryFieldSpecs(own_size, mask_type, box_values);
  if (own_size) {
    FlatLayout flat;
    flat.chunk_bytes = int64_t{64} << 10;
    options.flat = flat;
  } else {
    options.image_shape = kGeometryShape;
    options.chunk_images = 8;
  }
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  for (int c = 0; c < 7; ++c) description.classes.push_back("class" + std::to_string(c));
  std::vector<uint8_t> chunk;
  std::vector<StoredImage> images;
  EncodedChunk encoded;
  int64_t first = 0;
  const auto append = [&](int64_t end) {
    if (own_size) {
      writer.EncodePackedInto(chunk, images, encoded);
      writer.Append(encoded);
    } else {
      writer.Append(writer.Encode(chunk, end - first));
    }
    writer.AppendFields(
        GeometryColumns(first, end - first, own_size, mask_type, all_one_size, box_values));
    chunk.clear();
    images.clear();
    first = end;
  };
  for (int64_t r = 0; r < samples; ++r) {
    const ImageShape shape = GeometryShape(r, own_size, all_one_size);
    const bool full =
        own_size ? static_cast<int64_t>(chunk.size()) + shape.bytes() > options.flat->chunk_bytes
                 : r - first == options.chunk_images;
    if (full) append(r);
    const std::vector<uint8_t> image = CoordinateImage(r, shape);
    chunk.insert(chunk.end(), image.begin(), image.end());
    images.push_back({static_cast<int32_t>(shape.height), static_cast<int32_t>(shape.width), 3,
                      ImageEncoding::kRaw, static_cast<uint64_t>(shape.bytes()), 0});
    description.labels.push_back(r % 7);
    description.sources.push_back("img" + std::to_string(r) + ".png");
  }
  if (first < samples) append(samples);
  description.source_kind = own_size ? "imagefolder" : "npy";
  writer.Finish(description);
}

// The loader the geometric field tests read such a file with, on the CPU and the GPU stage
// alike: batches of 6 in random order, echo 2, the mask and the boxes, in two views of random
// resized crops with flips (40 x 32 and 16 x 24, scale 0.2 to 1).
inline LoaderOptions GeometryViewsOptions() {
  LoaderOptions options;
  options.batch_size = 6;
  options.sampler = SamplerOptions::Parse("random");
  options.seed = 11;
  options.threads = 2;
  options.slots = 4;
  options.echo = 2;
  options.fields = {"mask", "boxes"};
  options.open_probe = false;
  options.normalize = true;
  options.on_warning = [](const std::string&) {};
  AugmentOptions large;
  large.random_resized_crop = {40, 32, 0.2, 1.0};
  large.random_flip = true;
  AugmentOptions small;
  small.random_resized_crop = {16, 24, 0.2, 1.0};
  small.random_flip = true;
  options.output.views = {large, small};
  return options;
}

}  // namespace h5feed::testing
