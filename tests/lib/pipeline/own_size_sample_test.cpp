#include "pipeline/own_size_sample.h"

#include <doctest/doctest.h>

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

// Mean absolute difference per byte.
double MeanDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::abs(int(a[i]) - int(b[i]));
  return sum / static_cast<double>(a.size());
}

TEST_CASE("a JPEG decoded only where the crop reads gives the full decode's crop") {
  const ImageShape shape{375, 500, 3};
  const std::vector<uint8_t> pixels = PhotoPixels(375, 500, 3, 9);
  const std::vector<uint8_t> jpeg = EncodeTestJpeg(pixels, 375, 500, TJSAMP_420, 90);
  // The JPEG's own pixels, as a raw image: the reference every JPEG path is held to.
  decode::JpegRegionDecoder decoder;
  std::vector<uint8_t> decoded;
  decoder.Decode(jpeg, {375, 500, 3}, {0, 0, 375, 500}, 375, 500, decoded);
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
      CHECK(worst_scaled < 6.0);
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

}  // namespace
}  // namespace h5feed::pipeline
