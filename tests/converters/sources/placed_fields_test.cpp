// The masks and boxes of a sample moved with its resized image (placed_fields.h).

#include "sources/placed_fields.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

TEST_CASE("a placed mask holds only its stored values, not the source's capacity") {
  // A large mask shrunk to its image's stored size waits in the conversion until its chunk is
  // written: it kept the source's buffer (a 6000 x 6000 uint16 mask at 512 x 512: 72 MB each).
  for (const FieldType type : {FieldType::kUint8, FieldType::kUint16}) {
    const FieldSpec mask{"mask", FieldKind::kMask, type, {}, {}};
    const size_t element = ElementBytes(type);
    std::vector<std::vector<uint8_t>> values(1);
    values[0].resize(400 * 300 * element);
    for (size_t i = 0; i < values[0].size(); i += element) values[0][i] = (i / element) % 7;
    PlaceGeometricFields("a.png", {&mask, 1}, {400, 300}, {40, 30}, image::ResizeMode::kStretch, 0,
                         values);
    CHECK(values[0].size() == 40 * 30 * element);
    CHECK(values[0].capacity() == values[0].size());
    // Stored pixel (y, x) shows source pixel (10 y, 10 x): values (10 y * 300 + 10 x) % 7.
    for (int y = 0; y < 40; y += 13) {
      for (int x = 0; x < 30; x += 7) {
        CHECK(values[0][(y * 30 + x) * element] == (10 * y * 300 + 10 * x) % 7);
      }
    }
  }
}

TEST_CASE(
    "a mask padded to its image's stored size gets mask_fill on the border, its values "
    "inside") {
  // A 20 x 40 image fitted to 40 x 40 by kPad lands unscaled on rows 10..29, black above and
  // below; its mask's border is mask_fill (255: VOC's "ignore"), for uint8 and uint16 alike.
  for (const FieldType type : {FieldType::kUint8, FieldType::kUint16}) {
    for (const uint8_t fill : {uint8_t{0}, uint8_t{255}}) {
      CAPTURE(fill);
      const FieldSpec mask{"mask", FieldKind::kMask, type, {}, {}};
      const size_t element = ElementBytes(type);
      std::vector<std::vector<uint8_t>> values(1);
      values[0].assign(20 * 40 * element, 0);
      for (size_t i = 0; i < 20 * 40; ++i) values[0][i * element] = 1 + i % 200;
      PlaceGeometricFields("a.png", {&mask, 1}, {20, 40}, {40, 40}, image::ResizeMode::kPad, fill,
                           values);
      REQUIRE(values[0].size() == 40 * 40 * element);
      for (size_t y = 0; y < 40; ++y) {
        for (size_t x = 0; x < 40; ++x) {
          const uint8_t* value = &values[0][(y * 40 + x) * element];
          const bool inside = y >= 10 && y < 30;
          CHECK(value[0] == (inside ? 1 + ((y - 10) * 40 + x) % 200 : fill));
          if (element == 2) CHECK(value[1] == 0);
        }
      }
    }
  }
}

TEST_CASE(
    "boxes normalized to 0-1 are refused at the image's own size, before a resize drops them") {
  // Placed at 1/10 of their 400 x 300 image, every such box would be under a pixel and dropped,
  // the Writer seeing none: the sample is refused as it is placed, naming it.
  const FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  const float normalized[8] = {0, 0, 0, 0, 0.1f, 0.25f, 0.5f, 0.75f};
  const auto* bytes = reinterpret_cast<const uint8_t*>(normalized);
  for (const image::Size stored : {image::Size{40, 30}, image::Size{400, 300}}) {
    std::vector<std::vector<uint8_t>> values = {{bytes, bytes + sizeof(normalized)}};
    const Error error = testing::CaughtError([&] {
      PlaceGeometricFields("dataset[4]", {&boxes, 1}, {400, 300}, stored,
                           image::ResizeMode::kStretch, 0, values);
    });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()) ==
          "dataset[4]: boxes field \"boxes\" has every box within 0 to 1 (box 1 is [0.1, 0.25, "
          "0.5, 0.75]), but its image is 400 x 300 (height x width): boxes normalized to the "
          "image's size would be stored as boxes under a pixel, which the loader drops; give x1, "
          "y1, x2, y2 in the image's pixels (normalized boxes times [width, height, width, "
          "height])");
  }
  // On an image of 3 pixels a side they may be pixels: placed as any boxes.
  std::vector<std::vector<uint8_t>> values = {{bytes, bytes + sizeof(normalized)}};
  PlaceGeometricFields("dataset[5]", {&boxes, 1}, {3, 3}, {3, 3}, image::ResizeMode::kStretch, 0,
                       values);
  CHECK(values[0].size() == sizeof(normalized));
}

TEST_CASE("the bytes placing a mask copies are none for uint8 and the values for uint16") {
  CHECK(MaskCopyBytes(FieldType::kUint8, {600, 400}) == 0);
  CHECK(MaskCopyBytes(FieldType::kUint16, {600, 400}) == 600 * 400 * 2);
}

}  // namespace
}  // namespace h5feed::converters
