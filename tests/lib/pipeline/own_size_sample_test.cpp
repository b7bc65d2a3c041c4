#include "pipeline/own_size_sample.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "decode/jpeg_region_decoder.h"
#include "h5feed/error.h"
#include "lib/decode/test_jpegs.h"
#include "transform/output_spec.h"
#include "transform/resize_sample.h"

namespace h5feed::pipeline {
namespace {

using decode::testing::EncodeTestJpeg;
using decode::testing::PhotoPixels;

transform::NormalizeParams Normalize() {
  const float half[3] = {0.5f, 0.5f, 0.5f};
  return transform::MakeNormalizeParams(half, half, 3, 3);
}

// The crop of a view opened on the largest image of a file (512 x 512), as the loader makes it.
transform::AugmentParams Crop(const AugmentOptions& augment) {
  OutputOptions output;
  output.augment = augment;
  return transform::MakeOutputSpec(Normalize(), ImageShape{512, 512, 3}, output, 7).augment;
}

AugmentOptions RandomResizedCrop(int64_t size) {
  AugmentOptions augment;
  augment.random_resized_crop.height = size;
  augment.random_resized_crop.width = size;
  return augment;
}

AugmentOptions Validation() {
  AugmentOptions augment;
  augment.resize_shorter = 256;
  augment.center_crop_height = 224;
  augment.center_crop_width = 224;
  return augment;
}

// The same sample from a file whose images all have `shape`: the crop opened on that shape.
std::vector<uint8_t> AsFixedSizeFile(const AugmentOptions& augment, const ImageShape& shape,
                                     const std::vector<uint8_t>& pixels, int64_t epoch,
                                     int64_t row) {
  OutputOptions output;
  output.augment = augment;
  const transform::AugmentParams params =
      transform::MakeOutputSpec(Normalize(), shape, output, 7).augment;
  transform::SampleTransform t = transform::DrawTransform(params, epoch, row, 0);
  std::vector<uint8_t> out(static_cast<size_t>(params.out_height * params.out_width * 3));
  transform::ResizeSampleRows(pixels.data(), shape, t, params.antialias, 0, params.out_height,
                              out.data());
  return out;
}

std::vector<uint8_t> Sample(const transform::AugmentParams& crop, int64_t row,
                            const OwnSizeSample& sample, const std::vector<uint8_t>& stored,
                            bool region_decode = true) {
  std::vector<uint8_t> out(static_cast<size_t>(crop.out_height * crop.out_width * 3));
  MakeOwnSizeSample(crop, 0, row, sample, stored, out.data(), region_decode);
  return out;
}

TEST_CASE("a raw own-size sample equals the same crop of a file of images of its size") {
  for (const AugmentOptions& augment : {RandomResizedCrop(224), Validation()}) {
    const transform::AugmentParams crop = Crop(augment);
    for (const ImageShape shape :
         {ImageShape{375, 500, 3}, ImageShape{500, 333, 3}, ImageShape{300, 300, 3}}) {
      const std::vector<uint8_t> pixels =
          PhotoPixels(static_cast<int>(shape.height), static_cast<int>(shape.width), 3, 5);
      for (int64_t row = 0; row < 20; ++row) {
        CHECK(Sample(crop, row, {shape, ImageEncoding::kRaw}, pixels) ==
              AsFixedSizeFile(augment, shape, pixels, 0, row));
      }
    }
  }
}

// A photo-like quality-90 4:2:0 JPEG and its own pixels decoded whole: the reference every JPEG
// path is held to.
struct PhotoJpeg {
  PhotoJpeg(int height, int width, uint32_t seed)
      : jpeg(EncodeTestJpeg(PhotoPixels(height, width, 3, seed), height, width, TJSAMP_420, 90)) {
    decode::JpegRegionDecoder decoder;
    decoder.Decode(jpeg, {height, width, 3}, {0, 0, height, width}, height, width, decoded);
  }
  std::vector<uint8_t> jpeg;
  std::vector<uint8_t> decoded;
};

// Mean absolute difference per byte.
double MeanDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::abs(int(a[i]) - int(b[i]));
  return sum / static_cast<double>(a.size());
}

TEST_CASE("a JPEG decoded only where the crop reads gives the full decode's crop") {
  const ImageShape shape{375, 500, 3};
  const PhotoJpeg photo(375, 500, 9);
  const std::vector<uint8_t>& jpeg = photo.jpeg;
  const std::vector<uint8_t>& decoded = photo.decoded;
  // Outputs of 112 never ask for less than a box of 112: boxes of 224 or more decode at 1/2.
  for (const int64_t size : {224, 112}) {
    const transform::AugmentParams crop = Crop(RandomResizedCrop(size));
    double worst_scaled = 0;
    for (int64_t row = 0; row < 40; ++row) {
      const std::vector<uint8_t> full = Sample(crop, row, {shape, ImageEncoding::kRaw}, decoded);
      CHECK(Sample(crop, row, {shape, ImageEncoding::kJpeg}, jpeg, false) == full);
      const std::vector<uint8_t> region = Sample(crop, row, {shape, ImageEncoding::kJpeg}, jpeg);
      if (size == 224) {
        CHECK(region == full);  // boxes of at most 375 rows: never scaled, so exact
      } else {
        worst_scaled = std::max(worst_scaled, MeanDifference(region, full));
      }
    }
    // A scaled decode moves box edges by under half a scaled pixel and filters in the DCT:
    // a few levels on average (docs/reader.md).
    if (size == 112) {
      MESSAGE("largest mean difference of a scaled decode: " << worst_scaled);
      CHECK(worst_scaled < 2.0);
    }
  }
}

TEST_CASE("a damaged JPEG or one whose header lies is corrupt data") {
  const ImageShape shape{64, 80, 3};
  const std::vector<uint8_t> pixels = PhotoPixels(64, 80, 3, 2);
  std::vector<uint8_t> jpeg = EncodeTestJpeg(pixels, 64, 80, TJSAMP_420, 90);
  const transform::AugmentParams crop = Crop(RandomResizedCrop(32));
  std::vector<uint8_t> out(32 * 32 * 3);
  CHECK_THROWS_AS(MakeOwnSizeSample(crop, 0, 1, {ImageShape{64, 81, 3}, ImageEncoding::kJpeg}, jpeg,
                                    out.data()),
                  Error);
  jpeg.resize(jpeg.size() / 2);
  try {
    MakeOwnSizeSample(crop, 0, 1, {shape, ImageEncoding::kJpeg}, jpeg, out.data());
    FAIL("a truncated JPEG decoded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
  }
}

// Crops of views 0, 1, ... (each view's draws its own) made together into one buffer of
// rows `stride` bytes long, one view below the other, the rest of each row left as it was.
struct Views {
  std::vector<transform::AugmentParams> crops;
  int64_t stride = 0;
  std::vector<int64_t> tops;
  std::vector<uint8_t> buffer;

  explicit Views(const std::vector<AugmentOptions>& augments) {
    int64_t rows = 0;
    for (size_t v = 0; v < augments.size(); ++v) {
      crops.push_back(Crop(augments[v]));
      crops.back().view = static_cast<int32_t>(v);
      tops.push_back(rows);
      rows += crops.back().out_height;
      stride = std::max<int64_t>(stride, crops.back().out_width * 3);
    }
    buffer.assign(static_cast<size_t>(rows * stride), kUntouched);
  }
  void Make(int64_t row, const OwnSizeSample& sample, const std::vector<uint8_t>& stored) {
    std::vector<SampleCrop> targets;
    for (size_t v = 0; v < crops.size(); ++v) {
      targets.push_back({crops[v], buffer.data() + tops[v] * stride, stride});
    }
    MakeOwnSizeSample(targets, 0, row, sample, stored);
  }
  // View v's crop, packed; CHECKs that the bytes right of it were not written.
  std::vector<uint8_t> View(size_t v) const {
    const transform::AugmentParams& crop = crops[v];
    std::vector<uint8_t> packed;
    for (int64_t y = 0; y < crop.out_height; ++y) {
      const uint8_t* line = buffer.data() + (tops[v] + y) * stride;
      packed.insert(packed.end(), line, line + crop.out_width * 3);
      for (int64_t x = crop.out_width * 3; x < stride; ++x) REQUIRE(line[x] == kUntouched);
    }
    return packed;
  }

  static constexpr uint8_t kUntouched = 0xA5;
};

std::vector<AugmentOptions> DinoLikeViews() {
  return {RandomResizedCrop(224), RandomResizedCrop(224), RandomResizedCrop(96),
          RandomResizedCrop(96), Validation()};
}

TEST_CASE("several views of a raw sample, made together, are each the view made alone") {
  const ImageShape shape{375, 500, 3};
  const std::vector<uint8_t> pixels = PhotoPixels(375, 500, 3, 4);
  Views views(DinoLikeViews());
  for (int64_t row = 0; row < 10; ++row) {
    views.Make(row, {shape, ImageEncoding::kRaw}, pixels);
    for (size_t v = 0; v < views.crops.size(); ++v) {
      CHECK(views.View(v) == Sample(views.crops[v], row, {shape, ImageEncoding::kRaw}, pixels));
    }
  }
  // The views' draws differ: two views of one spec crop different boxes.
  CHECK(views.View(0) != views.View(1));
}

TEST_CASE("several views of a JPEG decode it once, fine enough for every view") {
  const ImageShape shape{375, 500, 3};
  const PhotoJpeg photo(375, 500, 11);
  const std::vector<uint8_t>& jpeg = photo.jpeg;
  const std::vector<uint8_t>& decoded = photo.decoded;
  // Views of 224 are never scaled: exact, whatever else the sample's decode covers.
  Views exact({RandomResizedCrop(224), RandomResizedCrop(224), RandomResizedCrop(224)});
  // Small views shrink their boxes enough to be decoded at a coarser scale together.
  Views mixed({RandomResizedCrop(96), RandomResizedCrop(96), RandomResizedCrop(64)});
  double worst = 0;
  for (int64_t row = 0; row < 20; ++row) {
    exact.Make(row, {shape, ImageEncoding::kJpeg}, jpeg);
    for (size_t v = 0; v < exact.crops.size(); ++v) {
      CHECK(exact.View(v) == Sample(exact.crops[v], row, {shape, ImageEncoding::kRaw}, decoded));
    }
    mixed.Make(row, {shape, ImageEncoding::kJpeg}, jpeg);
    for (size_t v = 0; v < mixed.crops.size(); ++v) {
      worst = std::max(
          worst, MeanDifference(mixed.View(v), Sample(mixed.crops[v], row,
                                                      {shape, ImageEncoding::kRaw}, decoded)));
    }
  }
  // At most the difference of each view's own scaled decode (the test above).
  MESSAGE("largest mean difference of a view decoded with others: " << worst);
  CHECK(worst > 0.0);  // some samples were decoded scaled
  CHECK(worst < 2.0);
}

TEST_CASE("a crop decoded at 1/2, 1/4 or 1/8 scale keeps its box's ends inside scaled pixels") {
  // Boxes of 750 x 1000 photos with outputs of 112, 56 and 32 decode at every DCT scale. With
  // the box's ends rounded to whole scaled pixels (up to 4 stored pixels at 1/8) the mean
  // differences were 1.5-3.3 levels and the worst 7.6; kept fractional, under a level.
  const ImageShape shape{750, 1000, 3};
  const PhotoJpeg photo(750, 1000, 9);
  const std::vector<uint8_t>& jpeg = photo.jpeg;
  const std::vector<uint8_t>& decoded = photo.decoded;
  for (const int64_t size : {112, 56, 32}) {
    const transform::AugmentParams crop = Crop(RandomResizedCrop(size));
    double worst = 0;
    double total = 0;
    constexpr int kRows = 40;
    for (int64_t row = 0; row < kRows; ++row) {
      const double difference =
          MeanDifference(Sample(crop, row, {shape, ImageEncoding::kJpeg}, jpeg),
                         Sample(crop, row, {shape, ImageEncoding::kRaw}, decoded));
      worst = std::max(worst, difference);
      total += difference;
    }
    MESSAGE("output " << size << ": mean difference " << total / kRows << ", worst " << worst);
    CHECK(total / kRows < 1.2);
    CHECK(worst < 2.5);
  }
}

}  // namespace
}  // namespace h5feed::pipeline
