// A mask through its sample's geometry (mask_geometry.h), on small masks whose every delivered
// value can be written down: crops repeat stored values (never blend them), flips mirror rows,
// padding takes the fill, uint16 class ids survive whole, rows land `out_row_stride` apart.
// Against torchvision: geometry_torchvision_test.cpp.
#include "transform/mask_geometry.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"
#include "transform/resized_crop.h"

namespace h5feed::transform {
namespace {

// A mask whose value at (y, x) is y x width + x: every pixel names where it came from.
template <typename T>
std::vector<T> Coordinates(int64_t height, int64_t width, T first = 0) {
  std::vector<T> mask(static_cast<size_t>(height * width));
  std::iota(mask.begin(), mask.end(), first);
  return mask;
}

template <typename T>
std::vector<T> Through(const SampleGeometry& geometry, const std::vector<T>& mask, MaskShape shape,
                       T fill = 0) {
  std::vector<T> out(static_cast<size_t>(geometry.rows.out) * geometry.columns.out, 99);
  TransformMask(geometry, std::span<const T>(mask), shape, std::span<T>(out), 0, fill);
  return out;
}

TEST_CASE("a crop enlarged twice repeats each stored value in a 2 x 2 block") {
  const std::vector<uint8_t> mask = Coordinates<uint8_t>(4, 4);
  const SampleGeometry geometry = ResizedCropGeometry(CropBox{1, 1, 2, 2}, 4, 4, false);
  CHECK(Through(geometry, mask, {4, 4}) == std::vector<uint8_t>{5, 5, 6, 6,    //
                                                                5, 5, 6, 6,    //
                                                                9, 9, 10, 10,  //
                                                                9, 9, 10, 10});
}

TEST_CASE("a flipped mask is the unflipped one with each row mirrored") {
  const std::vector<uint8_t> mask = Coordinates<uint8_t>(3, 5);
  const CropBox box{0, 1, 3, 3};  // columns 1..3
  const std::vector<uint8_t> plain = Through(ResizedCropGeometry(box, 3, 3, false), mask, {3, 5});
  const std::vector<uint8_t> flipped = Through(ResizedCropGeometry(box, 3, 3, true), mask, {3, 5});
  CHECK(plain == std::vector<uint8_t>{1, 2, 3, 6, 7, 8, 11, 12, 13});
  CHECK(flipped == std::vector<uint8_t>{3, 2, 1, 8, 7, 6, 13, 12, 11});
}

TEST_CASE("a shrunk mask takes stored values, never a blend of them") {
  // Class ids 0 and 200 in a checkerboard: a bilinear shrink would make 100s.
  std::vector<uint8_t> mask(64 * 64);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = ((i / 64 + i % 64) % 2) * 200;
  const SampleGeometry geometry = ResizedCropGeometry(CropBox{3, 5, 51, 37}, 17, 23, true);
  for (uint8_t value : Through(geometry, mask, {64, 64})) {
    CHECK((value == 0 || value == 200));
  }
}

TEST_CASE("uint16 class ids above 255 pass whole") {
  const std::vector<uint16_t> mask = Coordinates<uint16_t>(2, 3, 1000);
  const SampleGeometry geometry = ResizedCropGeometry(CropBox{0, 0, 2, 3}, 2, 6, true);
  CHECK(Through(geometry, mask, {2, 3}) ==
        std::vector<uint16_t>{1002, 1002, 1001, 1001, 1000, 1000,  //
                              1005, 1005, 1004, 1004, 1003, 1003});
}

TEST_CASE("padding pixels take the fill value") {
  const std::vector<uint8_t> mask = Coordinates<uint8_t>(2, 2, 1);
  // The 2 x 2 mask placed at (1, 1) of a 3 x 4 output, as a conversion's `pad` places it.
  const SampleGeometry geometry = PlacedGeometry({0, 2, 1, 2, 3}, {0, 2, 1, 2, 4});
  const std::vector<uint8_t> expected = {255, 255, 255, 255,  //
                                         255, 1,   2,   255,  //
                                         255, 3,   4,   255};
  CHECK(Through(geometry, mask, {2, 2}, uint8_t{255}) == expected);
}

TEST_CASE("rows are written out_row_stride values apart, leaving the values between alone") {
  const std::vector<uint8_t> mask = Coordinates<uint8_t>(4, 4);
  const SampleGeometry geometry = ResizedCropGeometry(CropBox{2, 2, 2, 2}, 2, 2, false);
  std::vector<uint8_t> out(2 * 5, 77);
  TransformMask(geometry, mask, {4, 4}, out, 5);
  CHECK(out == std::vector<uint8_t>{10, 11, 77, 77, 77, 14, 15, 77, 77, 77});
}

TEST_CASE("a window outside the mask, a short mask or a short output is refused") {
  const std::vector<uint8_t> mask = Coordinates<uint8_t>(4, 4);
  std::vector<uint8_t> out(16);
  const SampleGeometry outside = ResizedCropGeometry(CropBox{2, 2, 3, 2}, 4, 4, false);
  const SampleGeometry fits = ResizedCropGeometry(CropBox{0, 0, 4, 4}, 4, 4, false);
  const auto code = [&](const SampleGeometry& geometry, std::span<const uint8_t> in,
                        std::span<uint8_t> dest, std::string* message = nullptr) {
    return testing::CodeOf([&] { TransformMask(geometry, in, {4, 4}, dest); }, message);
  };
  std::string message;
  CHECK(code(outside, mask, out, &message) == ErrorCode::kInvalidArgument);
  CHECK(message.find("leaves the 4x4 mask") != std::string::npos);
  CHECK(code(fits, std::span(mask).first(15), out) == ErrorCode::kInvalidArgument);
  CHECK(code(fits, mask, std::span(out).first(15)) == ErrorCode::kInvalidArgument);
  TransformMask(fits, mask, {4, 4}, out);
  CHECK(out == mask);
}

}  // namespace
}  // namespace h5feed::transform
