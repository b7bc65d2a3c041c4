// A loader's masks and boxes follow its images (docs/augment.md, "Masks and boxes follow the
// image's geometry"; loader/geometric_fields.h): on coordinate images whose uint16 mask names
// each pixel's own place (geometry_test_file.h), over several epochs of random resized crops
// with flips, two views and echo copies, for a file of one image size and one of images at
// their own size, every delivered mask is the NEAREST resized crop (then flip) of the stored
// mask at a box that the delivered image's pixels agree with, and the delivered boxes, their
// classes and their per-box values (box_ids, which name the row and the box) are TransformBoxes
// of the stored ones at that box. Nothing of the loader's draws is reproduced: the box is
// recovered from what was delivered.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "lib/loader/geometry_test_file.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"
#include "transform/box_geometry.h"
#include "transform/sample_geometry.h"

namespace h5feed::testing {
namespace {

// One axis of a resized crop: stored [begin, begin + size) onto `out` delivered pixels.
struct Axis {
  int32_t begin = 0;
  int32_t size = 0;
};

// The boxes an axis' delivered mask coordinates `coords` (unflipped order) can come from by
// NEAREST, whose bilinear image `image` (unflipped, the ramp's values) agrees with them: each
// interior pixel (the filter's support inside the box) within rounding of the box's value.
std::vector<Axis> AxesOf(const std::vector<int>& coords, const std::vector<int>& image,
                         int32_t stored) {
  std::vector<Axis> found;
  const auto out = static_cast<int32_t>(coords.size());
  const int32_t begin = coords[0];
  for (int32_t size = 1; begin + size <= stored; ++size) {
    const transform::ResizeAxis axis{begin, size, out, 0, out};
    bool nearest = true;
    for (int32_t i = 0; i < out && nearest; ++i) {
      nearest = transform::NearestSource(axis, i) == coords[static_cast<size_t>(i)];
    }
    if (!nearest) continue;
    const double scale = static_cast<double>(size) / out;
    const double support = std::max(1.0, scale);
    bool agrees = true;
    for (int32_t i = 0; i < out && agrees; ++i) {
      const double center = (i + 0.5) * scale - 0.5;
      if (center - support < 0 || center + support > size - 1) continue;
      agrees = std::abs(image[static_cast<size_t>(i)] - (begin + center)) <= 0.75;
    }
    if (agrees) found.push_back({begin, size});
  }
  return found;
}

struct Checked {
  int64_t samples = 0;
  int64_t flipped = 0;
  int64_t boxes = 0;
  int64_t dropped = 0;  // stored boxes a crop left out
};

// Checks sample i of view v of `batch`; returns whether it was flipped.
bool CheckSample(const Batch& batch, int v, int64_t i, bool own_size, Checked& checked) {
  const int64_t row = batch.indices()[static_cast<size_t>(i)];
  const ImageShape stored = GeometryShape(row, own_size);
  const FieldTensor mask = batch.field_tensor("mask", v);
  const TensorView image = batch.image_tensor(v);
  const int64_t height = mask.shape[1];
  const int64_t width = mask.shape[2];
  REQUIRE(mask.type == FieldType::kUint16);
  REQUIRE(image.shape[1] == height);
  REQUIRE(image.shape[2] == width);
  const auto* m = static_cast<const uint16_t*>(mask.data) + i * height * width;
  const auto* p = static_cast<const uint8_t*>(image.data) + i * height * width * 3;
  // The mask is separable: row y of it names stored row ys[y], column x stored column xs[x].
  std::vector<int> xs(static_cast<size_t>(width)), ys(static_cast<size_t>(height));
  for (int64_t x = 0; x < width; ++x) xs[static_cast<size_t>(x)] = m[x] % 256;
  for (int64_t y = 0; y < height; ++y) ys[static_cast<size_t>(y)] = m[y * width] / 256;
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      REQUIRE(m[y * width + x] == ys[static_cast<size_t>(y)] * 256 + xs[static_cast<size_t>(x)]);
    }
  }
  std::vector<int> red(static_cast<size_t>(width)), green(static_cast<size_t>(height));
  for (int64_t x = 0; x < width; ++x) red[static_cast<size_t>(x)] = p[(height / 2 * width + x) * 3];
  for (int64_t y = 0; y < height; ++y)
    green[static_cast<size_t>(y)] = p[(y * width + width / 2) * 3 + 1];
  const bool flip = width > 1 && xs.front() > xs.back();
  if (flip) {
    std::reverse(xs.begin(), xs.end());
    std::reverse(red.begin(), red.end());
  }
  const std::vector<Axis> columns = AxesOf(xs, red, static_cast<int32_t>(stored.width));
  const std::vector<Axis> rows = AxesOf(ys, green, static_cast<int32_t>(stored.height));
  INFO("row ", row, " view ", v, " epoch ", batch.epoch(), " flip ", flip);
  REQUIRE(!columns.empty());
  REQUIRE(!rows.empty());

  // The boxes: TransformBoxes of the stored ones at one of those boxes.
  const int k = batch.field_index("boxes");
  const FieldTensor boxes = batch.field_tensor(k, v);
  const FieldTensor labels = batch.field_tensor("box_labels", v);
  const FieldTensor counts = batch.box_counts(k, v);
  REQUIRE(boxes.type == FieldType::kFloat32);
  REQUIRE(labels.type == FieldType::kInt64);
  const int64_t most = boxes.shape[1];
  REQUIRE(labels.shape == std::vector<int64_t>{batch.size(), most});
  const int64_t count = static_cast<const int64_t*>(counts.data)[i];
  const auto* delivered = static_cast<const float*>(boxes.data) + i * most * 4;
  const auto* classes = static_cast<const int64_t*>(labels.data) + i * most;
  for (int64_t b = count * 4; b < most * 4; ++b) REQUIRE(delivered[b] == 0.0f);
  for (int64_t b = count; b < most; ++b) REQUIRE(classes[b] == 0);
  // The per-box values: int32 as stored, each the id of the box its label classifies, 0 past
  // the count as the labels are.
  const FieldTensor box_ids = batch.field_tensor("box_ids", v);
  REQUIRE(box_ids.type == FieldType::kInt32);
  REQUIRE(box_ids.shape == std::vector<int64_t>{batch.size(), most});
  const auto* ids = static_cast<const int32_t*>(box_ids.data) + i * most;
  for (int64_t b = 0; b < count; ++b) REQUIRE(ids[b] == 1000 * row + (classes[b] - 10 * row));
  for (int64_t b = count; b < most; ++b) REQUIRE(ids[b] == 0);
  const std::vector<float> stored_boxes = GeometryBoxes(row, stored);
  const std::vector<int64_t> stored_labels = GeometryBoxLabels(row);
  const std::vector<int32_t> stored_ids32 = GeometryBoxIds(row);
  const std::vector<int64_t> stored_ids(stored_ids32.begin(), stored_ids32.end());
  bool matched = false;
  for (const Axis& r : rows) {
    for (const Axis& c : columns) {
      const transform::SampleGeometry geometry = transform::ResizedCropGeometry(
          {r.begin, c.begin, r.size, c.size}, static_cast<int32_t>(height),
          static_cast<int32_t>(width), flip);
      std::vector<float> expected(stored_boxes.size());
      std::vector<int64_t> kept_index(stored_boxes.size() / 4);
      const int64_t kept = transform::TransformBoxes(geometry, stored_boxes, expected, kept_index);
      bool same = kept == count;
      for (int64_t b = 0; same && b < kept * 4; ++b) {
        same = std::abs(expected[static_cast<size_t>(b)] - delivered[b]) <= 1e-4f;
      }
      for (int64_t b = 0; same && b < kept; ++b) {
        const auto from = static_cast<size_t>(kept_index[static_cast<size_t>(b)]);
        same = stored_labels[from] == classes[b] && stored_ids[from] == ids[b];
      }
      matched = matched || same;
    }
  }
  CHECK(matched);
  ++checked.samples;
  checked.boxes += count;
  checked.dropped += row % 4 - count;
  return flip;
}

LoaderOptions GeometryOptions() {
  LoaderOptions options = testing::GeometryViewsOptions();
  options.output.type = ElementType::kUint8;
  options.output.layout = Layout::kNHWC;
  return options;
}

void CheckFile(bool own_size) {
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 30, own_size, FieldType::kUint16, "zstd", false, true);
  Loader loader = Loader::Open(path, GeometryOptions());
  // Asked for the mask and the boxes: the boxes bring their labels and values.
  REQUIRE(loader.fields().size() == 4);
  CHECK(loader.fields()[3].Describe() == "box_values int32 of boxes");
  Checked checked;
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    loader.SetEpoch(epoch);
    while (std::optional<Batch> batch = loader.Next()) {
      REQUIRE(batch->views() == 2);
      for (int v = 0; v < batch->views(); ++v) {
        for (int64_t i = 0; i < batch->size(); ++i) {
          checked.flipped += CheckSample(*batch, v, i, own_size, checked);
        }
      }
    }
  }
  CHECK(checked.samples == 3 * 30 * 2 * 2);  // epochs x rows x echo x views
  CHECK(checked.flipped > checked.samples / 4);
  CHECK(checked.flipped < checked.samples * 3 / 4);
  CHECK(checked.boxes > 0);
  CHECK(checked.dropped > 0);  // crops dropped boxes, and their values with them
}

TEST_CASE("a loader's masks and boxes follow its images' crops and flips (one image size)") {
  CheckFile(false);
}

TEST_CASE("a loader's masks and boxes follow its images' crops and flips (own sizes)") {
  CheckFile(true);
}

TEST_CASE("without augmentation a batch's mask is the stored mask and its boxes the stored") {
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 20, false);
  LoaderOptions options;
  options.batch_size = 5;
  options.fields = {"mask", "boxes"};
  options.open_probe = false;
  Loader loader = Loader::Open(path, options);
  REQUIRE(loader.fields().size() == 3);  // the box labels come with their boxes
  CHECK(loader.fields()[2].name == "box_labels");
  while (std::optional<Batch> batch = loader.Next()) {
    const FieldTensor mask = batch->field_tensor("mask");
    CHECK(mask.shape == std::vector<int64_t>{batch->size(), 60, 80});
    const std::vector<uint16_t> stored = CoordinateMask(kGeometryShape);
    for (int64_t i = 0; i < batch->size(); ++i) {
      CHECK(std::memcmp(static_cast<const uint16_t*>(mask.data) + i * 60 * 80, stored.data(),
                        stored.size() * 2) == 0);
      const int64_t row = batch->indices()[static_cast<size_t>(i)];
      const int k = batch->field_index("boxes");
      const int64_t count = static_cast<const int64_t*>(batch->box_counts(k).data)[i];
      CHECK(count == row % 4);
    }
  }
}

TEST_CASE("a padding crop pads a mask with output.mask_fill and its image with 0 pixels") {
  // Uncropped pixels are not resized: delivered mask value y * 256 + x (never 255: x < 80) is
  // the stored pixel the image shows, R = x and G = y; a padding pixel is mask_fill in the mask
  // and (0, 0, 0) in the image.
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 12, false);
  LoaderOptions options = GeometryOptions();
  options.fields = {"mask"};
  AugmentOptions padded;
  padded.center_crop_height = 40;
  padded.center_crop_width = 56;
  padded.random_crop_padding = 6;
  padded.random_flip = true;
  options.output.views = {padded};
  options.output.mask_fill = 255;
  Loader loader = Loader::Open(path, options);
  int64_t filled = 0;
  while (std::optional<Batch> batch = loader.Next()) {
    const FieldTensor mask = batch->field_tensor("mask");
    REQUIRE(mask.shape == std::vector<int64_t>{batch->size(), 40, 56});
    const auto* values = static_cast<const uint16_t*>(mask.data);
    const TensorView images = batch->image_tensor();
    REQUIRE(images.type == ElementType::kUint8);  // GeometryOptions: uint8 NHWC, contiguous
    REQUIRE(images.shape == std::array<int64_t, 4>{batch->size(), 40, 56, 3});
    const auto* pixels = static_cast<const uint8_t*>(images.data);
    for (int64_t p = 0; p < batch->size() * 40 * 56; ++p) {
      const uint8_t* pixel = pixels + p * 3;
      if (values[p] == 255) {
        ++filled;
        REQUIRE((pixel[0] == 0 && pixel[1] == 0 && pixel[2] == 0));
      } else {
        REQUIRE(pixel[0] == values[p] % 256);
        REQUIRE(pixel[1] == values[p] / 256);
      }
    }
  }
  CHECK(filled > 0);
}

// One view's mask, boxes, counts and box labels of a batch, as delivered.
struct ViewTensors {
  FieldTensor mask, boxes, counts, labels;
};

ViewTensors TensorsOf(const Batch& batch, int v) {
  const int k = batch.field_index("boxes");
  return {batch.field_tensor("mask", v), batch.field_tensor(k, v), batch.box_counts(k, v),
          batch.field_tensor("box_labels", v)};
}

bool SameValues(const FieldTensor& kept, const FieldTensor& fresh) {
  const auto bytes = static_cast<size_t>(fresh.elements()) * ElementBytes(fresh.type);
  return kept.shape == fresh.shape && kept.type == fresh.type &&
         std::memcmp(kept.data, fresh.data, bytes) == 0;
}

TEST_CASE("field_owner keeps a batch's mask or boxes alone: the loader runs on past its slots") {
  // An evaluation keeps every batch's ground truth: 2 epochs of 10 batches (echo 2) with 4
  // slots, each batch dropped as soon as its tensors' owners are taken. Were an owner holding
  // the batch's slot, Next would stop after 4 (it throws after waiting 5 s).
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 30, false);
  const LoaderOptions options = GeometryOptions();
  struct Kept {
    std::vector<ViewTensors> views;
    std::vector<std::shared_ptr<const void>> owners;  // mask, boxes (and counts), labels
  };
  std::vector<Kept> kept;
  {
    Loader loader = Loader::Open(path, options);
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      loader.SetEpoch(epoch);
      while (std::optional<Batch> batch = loader.Next()) {
        Kept& k = kept.emplace_back();
        for (int v = 0; v < batch->views(); ++v) {
          k.views.push_back(TensorsOf(*batch, v));
          for (const char* name : {"mask", "boxes", "box_labels"}) {
            k.owners.push_back(batch->field_owner(batch->field_index(name), v));
            REQUIRE(k.owners.back() != nullptr);
          }
        }
        CHECK_THROWS_AS(batch->field_owner(0, batch->views()), Error);
      }
    }
  }                                 // the loader is gone too: the owners alone keep the tensors
  CHECK(kept.size() == 2 * 5 * 2);  // epochs x batches of 6 x echo copies
  Loader fresh = Loader::Open(path, options);
  size_t b = 0;
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    fresh.SetEpoch(epoch);
    while (std::optional<Batch> batch = fresh.Next()) {
      REQUIRE(b < kept.size());
      for (int v = 0; v < batch->views(); ++v) {
        CAPTURE(b);
        CAPTURE(v);
        const ViewTensors& held = kept[b].views[static_cast<size_t>(v)];
        const ViewTensors now = TensorsOf(*batch, v);
        CHECK(SameValues(held.mask, now.mask));
        CHECK(SameValues(held.boxes, now.boxes));
        CHECK(SameValues(held.counts, now.counts));
        CHECK(SameValues(held.labels, now.labels));
      }
      ++b;
    }
  }
  CHECK(b == kept.size());
}

// The GPU stage's masks and boxes: gpu_geometric_fields_test, against this file's CPU path.
TEST_CASE("box labels and box values are refused without their boxes") {
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 8, false, FieldType::kUint16, "zstd", false, true);
  LoaderOptions options = GeometryOptions();
  for (const char* name : {"box_labels", "box_ids"}) {
    options.fields = {name};
    const Error error = CaughtError([&] { Loader::Open(path, options); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()).find("without the boxes") != std::string::npos);
  }
}

TEST_CASE("box values asked before their boxes come where asked, in step with them") {
  const TempFolder folder;
  const std::string path = folder.path() + "/geometry.h5";
  WriteGeometryTestFile(path, 12, false, FieldType::kUint16, "zstd", false, true);
  LoaderOptions options;
  options.batch_size = 4;
  options.fields = {"box_ids", "boxes"};
  options.open_probe = false;
  Loader loader = Loader::Open(path, options);
  REQUIRE(loader.fields().size() == 3);
  CHECK(loader.fields()[0].name == "box_ids");
  CHECK(loader.fields()[2].name == "box_labels");  // brought by its boxes
  int64_t seen = 0;
  while (std::optional<Batch> batch = loader.Next()) {
    const FieldTensor ids = batch->field_tensor("box_ids");
    const int k = batch->field_index("boxes");
    const int64_t most = batch->field_tensor(k).shape[1];
    for (int64_t i = 0; i < batch->size(); ++i) {
      const int64_t row = batch->indices()[static_cast<size_t>(i)];
      const std::vector<int32_t> stored = GeometryBoxIds(row);  // no crop: every box kept
      REQUIRE(static_cast<const int64_t*>(batch->box_counts(k).data)[i] == row % 4);
      for (int64_t b = 0; b < row % 4; ++b, ++seen) {
        CHECK(static_cast<const int32_t*>(ids.data)[i * most + b] == stored[b]);
      }
    }
  }
  CHECK(seen == 0 + 1 + 2 + 3 + 0 + 1 + 2 + 3 + 0 + 1 + 2 + 3);
}

}  // namespace
}  // namespace h5feed::testing
