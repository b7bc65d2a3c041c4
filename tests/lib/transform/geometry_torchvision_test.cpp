// Masks and boxes through a sample's geometry against torchvision (torchvision_reference.py,
// Debian's torch 1.13 and torchvision 0.14): random masks (uint8 and uint16, every pixel its own
// random class, so one wrong index shows) and random boxes (inside, across and outside the crop,
// some under a pixel once delivered) through the geometry of every crop kind, built as the
// loader builds it (DrawTransform, GeometryOf), with and without the flip:
//   masks equal torchvision.transforms.functional's NEAREST resized_crop (or resize then crop,
//   or pad then crop, or a conversion's crop, resize and pad) and hflip, value for value;
//   boxes equal torchvision.transforms.v2's bounding-box kernels then ClampBoundingBoxes and
//   SanitizeBoundingBoxes(min_size=1) (transcribed: 0.14 has no v2) to 1e-4 pixels, the same
//   boxes kept.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/temp_folder.h"
#include "transform/augment.h"
#include "transform/box_geometry.h"
#include "transform/mask_geometry.h"
#include "transform/sample_geometry.h"

namespace h5feed::transform {
namespace {

// One geometry of a stored height x width image, and the reference's words for it.
struct Case {
  int32_t height = 0;
  int32_t width = 0;
  SampleGeometry geometry;
  std::string words;  // GEOMETRY of torchvision_reference.py
};

std::string Words(std::initializer_list<int64_t> numbers) {
  std::string words;
  for (int64_t n : numbers) words += " " + std::to_string(n);
  return words;
}

AugmentParams Params(CropKind crop, int32_t height, int32_t width, int32_t out_height,
                     int32_t out_width) {
  AugmentParams params;
  params.seed = 2024;
  params.crop = crop;
  params.image_height = height;
  params.image_width = width;
  params.out_height = out_height;
  params.out_width = out_width;
  params.random_flip = true;
  params.resized_crop.log_ratio_min = std::log(params.resized_crop.ratio_min);
  params.resized_crop.log_ratio_max = std::log(params.resized_crop.ratio_max);
  return params;
}

// The loader's draws for dataset row `row`: a random resized crop and the flip.
Case RandomResized(int32_t height, int32_t width, int32_t out_height, int32_t out_width,
                   int64_t row) {
  const AugmentParams params =
      Params(CropKind::kRandomResized, height, width, out_height, out_width);
  const SampleGeometry g = GeometryOf(params, DrawTransform(params, 1, row, 0));
  return {height, width, g,
          "crop" + Words({g.rows.src_begin, g.columns.src_begin, g.rows.src_size,
                          g.columns.src_size, out_height, out_width, g.flip, 0})};
}

Case Box(int32_t height, int32_t width, CropBox box, int32_t out_height, int32_t out_width,
         bool flip) {
  return {
      height, width, ResizedCropGeometry(box, out_height, out_width, flip),
      "crop" + Words({box.top, box.left, box.height, box.width, out_height, out_width, flip, 0})};
}

Case ResizeThenCrop(int32_t height, int32_t width, int32_t resized_height, int32_t resized_width,
                    int32_t out_height, int32_t out_width, int64_t row) {
  AugmentParams params = Params(CropKind::kResize, height, width, out_height, out_width);
  params.resized_height = resized_height;
  params.resized_width = resized_width;
  params.crop_top = (resized_height - out_height) / 2;
  params.crop_left = (resized_width - out_width + 1) / 2;
  const SampleGeometry g = GeometryOf(params, DrawTransform(params, 1, row, 0));
  return {height, width, g,
          "resize" + Words({resized_height, resized_width, params.crop_top, params.crop_left,
                            out_height, out_width, g.flip, 0})};
}

Case PaddedWindow(int32_t height, int32_t width, int32_t out_height, int32_t out_width,
                  int32_t padding, int64_t row, int32_t fill) {
  AugmentParams params = Params(CropKind::kWindow, height, width, out_height, out_width);
  params.crop_top = (height - out_height) / 2;
  params.crop_left = (width - out_width) / 2;
  params.padding = padding;
  const SampleTransform t = DrawTransform(params, 1, row, 0);
  const SampleGeometry g = GeometryOf(params, t);
  return {height, width, g,
          "window" + Words({params.crop_top, params.crop_left, out_height, out_width, padding,
                            t.shift_y + padding, t.shift_x + padding, g.flip, fill})};
}

Case Placed(int32_t height, int32_t width, Placement1D rows, Placement1D columns, int32_t fill) {
  return {height, width, PlacedGeometry(rows, columns),
          "placed" +
              Words({rows.source_begin, columns.source_begin, rows.source_size, columns.source_size,
                     rows.target_begin, columns.target_begin, rows.target_size, columns.target_size,
                     rows.stored, columns.stored, 0, fill})};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (int64_t row = 0; row < 12; ++row) {
    cases.push_back(RandomResized(375, 500, 224, 224, row));
    cases.push_back(RandomResized(61, 47, 96, 80, row));  // enlarging
  }
  cases.push_back(Box(64, 80, {0, 0, 64, 80}, 64, 80, false));   // identity
  cases.push_back(Box(64, 80, {5, 7, 1, 1}, 9, 13, true));       // 1 pixel
  cases.push_back(Box(64, 80, {0, 0, 14, 26}, 46, 22, false));   // float rounding (see test)
  cases.push_back(Box(64, 80, {3, 70, 60, 10}, 120, 20, true));  // 2x exactly
  cases.push_back(Box(300, 200, {17, 9, 283, 191}, 37, 29, true));
  for (int64_t row = 0; row < 4; ++row) {
    cases.push_back(ResizeThenCrop(300, 400, 256, 341, 224, 224, row));
    cases.push_back(ResizeThenCrop(211, 333, 96, 151, 95, 90, row));
    cases.push_back(PaddedWindow(32, 32, 32, 32, 4, row, 255));
    cases.push_back(PaddedWindow(40, 37, 32, 30, 6, row, 0));
  }
  // A conversion to 64 x 64 of a 100 x 50 source: pad, crop, stretch; and --max-side 40.
  cases.push_back(Placed(100, 50, {0, 100, 0, 64, 64}, {0, 50, 16, 32, 64}, 0));
  cases.push_back(Placed(100, 50, {25, 50, 0, 64, 64}, {0, 50, 0, 64, 64}, 0));
  cases.push_back(Placed(100, 50, {0, 100, 0, 64, 64}, {0, 50, 0, 64, 64}, 0));
  cases.push_back(Placed(100, 50, {0, 100, 0, 40, 40}, {0, 50, 0, 20, 20}, 0));
  return cases;
}

template <typename T>
std::vector<T> ReadValues(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

template <typename T>
void WriteValues(const std::string& path, const std::vector<T>& values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
}

void RunReference(const char* what, const testing::TempFolder& folder) {
  const std::string command = std::string(H5FEED_PYTHON) + " " + H5FEED_TORCHVISION_REFERENCE +
                              " " + what + " " + (folder / "cases.txt") + " " + folder.path();
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
}

template <typename T>
void CheckMasks(T max_class) {
  const std::vector<Case> cases = Cases();
  testing::TempFolder folder;
  std::mt19937 random(7);
  std::vector<std::vector<T>> masks;
  {
    std::ofstream list(folder / "cases.txt");
    for (size_t k = 0; k < cases.size(); ++k) {
      const Case& c = cases[k];
      std::uniform_int_distribution<int> classes(0, max_class);
      std::vector<T> mask(static_cast<size_t>(c.height) * c.width);
      for (T& value : mask) value = static_cast<T>(classes(random));
      WriteValues(folder / (std::to_string(k) + ".mask"), mask);
      masks.push_back(std::move(mask));
      list << c.height << ' ' << c.width << ' ' << sizeof(T) << ' ' << c.words << '\n';
    }
  }
  RunReference("mask", folder);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    CAPTURE(c.words);
    const int32_t fill = std::stoi(c.words.substr(c.words.rfind(' ') + 1));
    std::vector<T> ours(static_cast<size_t>(c.geometry.rows.out) * c.geometry.columns.out);
    TransformMask(c.geometry, std::span<const T>(masks[k]), {c.height, c.width}, std::span<T>(ours),
                  0, static_cast<T>(fill));
    CHECK(ours == ReadValues<T>(folder / (std::to_string(k) + ".expected")));
  }
}

TEST_CASE("a mask through every crop kind equals torchvision's NEAREST transforms, uint8") {
  CheckMasks<uint8_t>(255);
}

TEST_CASE("a mask through every crop kind equals torchvision's NEAREST transforms, uint16") {
  CheckMasks<uint16_t>(65535);
}

TEST_CASE("boxes through every crop kind equal torchvision.transforms.v2's to 1e-4 pixels") {
  const std::vector<Case> cases = Cases();
  testing::TempFolder folder;
  std::mt19937 random(11);
  std::vector<std::vector<float>> boxes;
  int64_t total = 0;
  int64_t kept_total = 0;
  {
    std::ofstream list(folder / "cases.txt");
    for (size_t k = 0; k < cases.size(); ++k) {
      const Case& c = cases[k];
      // Corners anywhere from a tenth of the image before it to a tenth after; sides either up
      // to half the image or under 3 pixels (many under a pixel once delivered).
      std::uniform_real_distribution<float> x(-0.1f * c.width, 1.1f * c.width);
      std::uniform_real_distribution<float> y(-0.1f * c.height, 1.1f * c.height);
      std::uniform_real_distribution<float> unit(0.0f, 1.0f);
      std::vector<float> sample;
      for (int b = 0; b < 60; ++b) {
        const float x1 = x(random);
        const float y1 = y(random);
        const bool small = b % 3 == 0;
        const float w = unit(random) * (small ? 3.0f : 0.5f * c.width);
        const float h = unit(random) * (small ? 3.0f : 0.5f * c.height);
        sample.insert(sample.end(), {x1, y1, x1 + w, y1 + h});
      }
      // The whole image, and one box on integer edges.
      sample.insert(sample.end(), {0, 0, static_cast<float>(c.width), static_cast<float>(c.height),
                                   2, 3, 10, 12});
      WriteValues(folder / (std::to_string(k) + ".boxes"), sample);
      list << c.height << ' ' << c.width << ' ' << sample.size() / 4 << ' ' << c.words << '\n';
      boxes.push_back(std::move(sample));
    }
  }
  RunReference("boxes", folder);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    CAPTURE(c.words);
    const size_t count = boxes[k].size() / 4;
    std::vector<float> ours(boxes[k].size());
    std::vector<int64_t> kept(count);
    const auto n = static_cast<size_t>(TransformBoxes(c.geometry, boxes[k], ours, kept));
    const std::vector<float> expected =
        ReadValues<float>(folder / (std::to_string(k) + ".expected"));
    const std::vector<int32_t> expected_kept =
        ReadValues<int32_t>(folder / (std::to_string(k) + ".kept"));
    REQUIRE(n == expected_kept.size());
    REQUIRE(expected.size() == 4 * n);
    for (size_t i = 0; i < n; ++i) {
      CHECK(kept[i] == expected_kept[i]);
      for (size_t j = 0; j < 4; ++j) {
        CHECK(std::fabs(ours[4 * i + j] - expected[4 * i + j]) <= 1e-4f);
      }
    }
    total += static_cast<int64_t>(count);
    kept_total += static_cast<int64_t>(n);
  }
  // Both outcomes are exercised: many boxes kept, many dropped.
  CHECK(kept_total > total / 5);
  CHECK(kept_total < total * 4 / 5);
}

}  // namespace
}  // namespace h5feed::transform
