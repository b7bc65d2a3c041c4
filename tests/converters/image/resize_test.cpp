#include "image/resize.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::converters::image {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Uniform(Size s, uint8_t r, uint8_t g, uint8_t b) {
  Bytes out(static_cast<size_t>(s.height) * s.width * 3);
  for (size_t i = 0; i < out.size(); i += 3) {
    out[i] = r;
    out[i + 1] = g;
    out[i + 2] = b;
  }
  return out;
}

Bytes Resized(const Bytes& src, Size src_size, Size target, ResizeMode mode) {
  Bytes dest(static_cast<size_t>(target.height) * target.width * 3, 77);
  ResizeInto(src, src_size, target, mode, dest);
  return dest;
}

const uint8_t* Pixel(const Bytes& image, Size s, int y, int x) {
  return &image[(static_cast<size_t>(y) * s.width + x) * 3];
}

bool SizesEqual(Size a, Size b) { return a.height == b.height && a.width == b.width; }

TEST_CASE("the capped size shrinks the longer side to the cap, keeps aspect, never enlarges") {
  CHECK(SizesEqual(CappedSize({300, 400}, 128), {96, 128}));     // 4:3
  CHECK(SizesEqual(CappedSize({400, 300}, 128), {128, 96}));     // 3:4
  CHECK(SizesEqual(CappedSize({270, 480}, 128), {72, 128}));     // 16:9
  CHECK(SizesEqual(CappedSize({300, 202}, 128), {128, 86}));     // floor(202 * 128 / 300)
  CHECK(SizesEqual(CappedSize({129, 129}, 128), {128, 128}));    // square
  CHECK(SizesEqual(CappedSize({500, 1}, 128), {128, 1}));        // at least 1
  CHECK(SizesEqual(CappedSize({128, 100}, 128), {128, 100}));    // at the cap: as it is
  CHECK(SizesEqual(CappedSize({5, 7}, 128), {5, 7}));            // never enlarged
  CHECK(SizesEqual(CappedSize({4000, 3000}, 0), {4000, 3000}));  // 0: no cap
}

TEST_CASE("the scaled source size covers the target for crop, fits it for pad, is it for stretch") {
  // A 300 x 400 (h x w) photo to 224 x 224.
  CHECK(SizesEqual(ScaledSourceSize({300, 400}, {224, 224}, ResizeMode::kCrop), {224, 299}));
  CHECK(SizesEqual(ScaledSourceSize({300, 400}, {224, 224}, ResizeMode::kPad), {168, 224}));
  CHECK(SizesEqual(ScaledSourceSize({300, 400}, {224, 224}, ResizeMode::kStretch), {224, 224}));
  // Portrait, and an enlargement.
  CHECK(SizesEqual(ScaledSourceSize({400, 300}, {224, 224}, ResizeMode::kCrop), {299, 224}));
  CHECK(SizesEqual(ScaledSourceSize({50, 100}, {100, 100}, ResizeMode::kCrop), {100, 200}));
  CHECK(SizesEqual(ScaledSourceSize({50, 100}, {100, 100}, ResizeMode::kPad), {50, 100}));
  // Same aspect ratio: every mode gives the target.
  for (ResizeMode mode : {ResizeMode::kCrop, ResizeMode::kPad, ResizeMode::kStretch}) {
    CHECK(SizesEqual(ScaledSourceSize({600, 800}, {300, 400}, mode), {300, 400}));
  }
  // An extreme aspect ratio never scales a side to zero.
  CHECK(SizesEqual(ScaledSourceSize({1, 5000}, {100, 100}, ResizeMode::kPad), {1, 100}));
}

TEST_CASE("the crop cover size is rounded up so the target is always covered") {
  for (int h = 1; h < 60; ++h) {
    for (int w = 1; w < 60; w += 7) {
      const Size s = ScaledSourceSize({h, w}, {32, 24}, ResizeMode::kCrop);
      CHECK(s.height >= 32);
      CHECK(s.width >= 24);
      CHECK((s.height == 32 || s.width == 24));
    }
  }
}

TEST_CASE("a uniform image stays uniform in every mode, shrinking and enlarging") {
  const Size target{24, 32};
  for (Size src : {Size{100, 150}, Size{10, 8}, Size{24, 32}, Size{12, 90}, Size{90, 12}}) {
    for (ResizeMode mode : {ResizeMode::kCrop, ResizeMode::kStretch}) {
      CAPTURE(src.height);
      CAPTURE(src.width);
      CHECK(Resized(Uniform(src, 9, 120, 250), src, target, mode) == Uniform(target, 9, 120, 250));
    }
  }
}

TEST_CASE("pad centers the scaled image on zeros") {
  // 100 x 200 to 100 x 100: the image becomes 50 x 100, rows 25..74.
  const Size src{100, 200}, target{100, 100};
  const Bytes out = Resized(Uniform(src, 255, 255, 255), src, target, ResizeMode::kPad);
  for (int y = 0; y < 100; ++y) {
    const uint8_t expected = (y >= 25 && y < 75) ? 255 : 0;
    for (int x = 0; x < 100; ++x) {
      const uint8_t* p = Pixel(out, target, y, x);
      REQUIRE(p[0] == expected);
      REQUIRE(p[1] == expected);
      REQUIRE(p[2] == expected);
    }
  }
  // Portrait: columns padded.
  const Bytes tall = Resized(Uniform({200, 100}, 255, 0, 0), {200, 100}, {50, 50},
                             ResizeMode::kPad);  // becomes 50 x 25, columns 12..36
  CHECK(Pixel(tall, {50, 50}, 25, 11)[0] == 0);
  CHECK(Pixel(tall, {50, 50}, 25, 12)[0] == 255);
  CHECK(Pixel(tall, {50, 50}, 25, 36)[0] == 255);
  CHECK(Pixel(tall, {50, 50}, 25, 37)[0] == 0);
  CHECK(Pixel(tall, {50, 50}, 0, 0)[0] == 0);
}

TEST_CASE("crop keeps the center: the side bands are cut away") {
  // 100 x 200: a red band (columns 0..49), green middle (50..149), blue band (150..199).
  const Size src{100, 200};
  Bytes image(static_cast<size_t>(100) * 200 * 3, 0);
  for (int y = 0; y < 100; ++y) {
    for (int x = 0; x < 200; ++x) {
      image[(static_cast<size_t>(y) * 200 + x) * 3 + (x < 50 ? 0 : x < 150 ? 1 : 2)] = 255;
    }
  }
  CHECK(Resized(image, src, {50, 50}, ResizeMode::kCrop) == Uniform({50, 50}, 0, 255, 0));
  CHECK(Resized(image, src, {100, 100}, ResizeMode::kCrop) == Uniform({100, 100}, 0, 255, 0));
  CHECK(Resized(image, src, {200, 200}, ResizeMode::kCrop) == Uniform({200, 200}, 0, 255, 0));
}

TEST_CASE("stretch keeps every part of the image: both bands survive") {
  const Size src{10, 20};
  Bytes image(static_cast<size_t>(10) * 20 * 3, 0);
  for (int y = 0; y < 10; ++y) {
    for (int x = 0; x < 10; ++x) image[(static_cast<size_t>(y) * 20 + x) * 3] = 255;
  }
  const Bytes out = Resized(image, src, {10, 10}, ResizeMode::kStretch);
  CHECK(Pixel(out, {10, 10}, 5, 0)[0] == 255);
  CHECK(Pixel(out, {10, 10}, 5, 9)[0] == 0);
}

TEST_CASE("shrinking averages whole areas rather than sampling a few pixels") {
  // 4 x 4 to 1 x 1: area averaging gives the mean of all 16 pixels (25 * 12 / 16 = 18.75),
  // bilinear would give the mean of the central four (0).
  Bytes image(4 * 4 * 3, 0);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const bool center = (y == 1 || y == 2) && (x == 1 || x == 2);
      for (int c = 0; c < 3; ++c) image[(y * 4 + x) * 3 + c] = center ? 0 : 25;
    }
  }
  const Bytes out = Resized(image, {4, 4}, {1, 1}, ResizeMode::kStretch);
  CHECK(out == Bytes{19, 19, 19});
}

TEST_CASE("equal sizes copy the pixels unchanged") {
  Bytes image(6 * 5 * 3);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<uint8_t>(i * 7);
  for (ResizeMode mode : {ResizeMode::kCrop, ResizeMode::kPad, ResizeMode::kStretch}) {
    CHECK(Resized(image, {6, 5}, {6, 5}, mode) == image);
  }
}

TEST_CASE("stretching down one side and up the other keeps a gradient monotonic") {
  // 4 x 40 to 40 x 4: rows grow, columns shrink (two passes).
  const Size src{4, 40}, target{40, 4};
  Bytes image(static_cast<size_t>(4) * 40 * 3);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 40; ++x) {
      for (int c = 0; c < 3; ++c) image[(static_cast<size_t>(y) * 40 + x) * 3 + c] = x * 6;
    }
  }
  const Bytes out = Resized(image, src, target, ResizeMode::kStretch);
  for (int y = 0; y < 40; ++y) {
    for (int x = 1; x < 4; ++x) {
      CHECK(Pixel(out, target, y, x)[0] > Pixel(out, target, y, x - 1)[0]);
    }
    CHECK(Pixel(out, target, y, 0)[0] == Pixel(out, target, 0, 0)[0]);
  }
  // Each output column averages ten source columns: 6 * (0 + ... + 9) / 10 = 27 for the first.
  CHECK(Pixel(out, target, 0, 0)[0] == 27);
}

TEST_CASE("buffers of the wrong size are refused") {
  Bytes src(10 * 10 * 3), dest(5 * 5 * 3);
  CHECK_THROWS_AS(ResizeInto(src, {10, 11}, {5, 5}, ResizeMode::kCrop, dest), Error);
  CHECK_THROWS_AS(ResizeInto(src, {10, 10}, {5, 6}, ResizeMode::kCrop, dest), Error);
  CHECK_THROWS_AS(ResizeInto(src, {10, 10}, {0, 5}, ResizeMode::kCrop, dest), Error);
  CHECK_THROWS_AS(ScaledSourceSize({0, 10}, {5, 5}, ResizeMode::kPad), Error);
}

Bytes Noise(Size s, uint32_t seed) {
  Bytes out(static_cast<size_t>(s.height) * s.width * 3);
  uint32_t state = seed * 2654435761u + 1;
  for (uint8_t& v : out) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<uint8_t>(state >> 24);
  }
  return out;
}

Bytes ResizedRowByRow(const Bytes& src, Size src_size, Size target, ResizeMode mode) {
  Bytes dest(static_cast<size_t>(target.height) * target.width * 3, 77);
  RowResizer resizer(src_size, target, mode, dest);
  const size_t row_bytes = size_t{3} * src_size.width;
  for (int y = 0; y < src_size.height; ++y) {
    resizer.AddRow({src.data() + y * row_bytes, row_bytes});
  }
  resizer.Finish();
  return dest;
}

TEST_CASE("resizing row by row gives ResizeInto's pixels exactly, in every mode") {
  struct Case {
    Size src, target;
  };
  // Shrinking both sides, enlarging both, one of each (stretch), equal sizes, extreme aspect
  // ratios, and sizes where the crop or the padding is off by one.
  for (const Case c :
       {Case{{300, 400}, {224, 224}}, Case{{400, 300}, {224, 224}}, Case{{50, 100}, {100, 100}},
        Case{{30, 20}, {64, 48}}, Case{{200, 40}, {64, 64}}, Case{{64, 64}, {64, 64}},
        Case{{1, 900}, {32, 32}}, Case{{901, 3}, {32, 32}}, Case{{333, 222}, {111, 77}},
        Case{{1000, 999}, {7, 5}}}) {
    for (ResizeMode mode : {ResizeMode::kCrop, ResizeMode::kStretch, ResizeMode::kPad}) {
      CAPTURE(c.src.height);
      CAPTURE(c.src.width);
      CAPTURE(c.target.height);
      CAPTURE(static_cast<int>(mode));
      const Bytes src = Noise(c.src, static_cast<uint32_t>(c.src.height * 31 + c.src.width));
      CHECK(ResizedRowByRow(src, c.src, c.target, mode) == Resized(src, c.src, c.target, mode));
    }
  }
}

TEST_CASE("a row resizer refuses rows of the wrong width, extra rows and an early finish") {
  Bytes dest(16 * 16 * 3);
  RowResizer resizer({4, 20}, {16, 16}, ResizeMode::kCrop, dest);
  Bytes row(20 * 3, 1);
  CHECK_THROWS_AS(resizer.AddRow({row.data(), 19 * 3}), Error);
  resizer.AddRow(row);
  CHECK_THROWS_AS(resizer.Finish(), Error);
  for (int y = 1; y < 4; ++y) resizer.AddRow(row);
  CHECK_THROWS_AS(resizer.AddRow(row), Error);
  resizer.Finish();
}

TEST_CASE("the resize scratch estimate grows with the width and the target, not the height") {
  const int64_t tall = ResizeScratchBytes({29700, 20990}, {224, 224}, ResizeMode::kCrop);
  CHECK(tall < int64_t{20990} * 3 * 4 * 3 + (2 << 20));
  // Stretching a tall thin image keeps a shrunk copy as tall as the target.
  const int64_t stretched = ResizeScratchBytes({30000, 10}, {224, 224}, ResizeMode::kStretch);
  CHECK(stretched >= 224 * 10 * 3);
}

}  // namespace
}  // namespace h5feed::converters::image
