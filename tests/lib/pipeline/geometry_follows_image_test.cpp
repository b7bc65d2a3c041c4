// A mask through its view's geometry (transform/view_geometry.h) lands where the delivered
// image's pixels do, on the image's own paths: a file of one image size (the crop and flip made
// as each view is delivered, transform/sample_normalize.h) and a file of images at their own
// size (the crop made at the gather, pipeline/own_size_sample.h, the flip at delivery), with
// several views and echo copies. The image is made of blocks whose pixel value is the block's
// class in the mask, so wherever the delivered mask is one class around a pixel (5 x 5), the
// image's bilinear resize of the same place is that class's value exactly; a box, a flip or a
// draw that differed from the image's would show as a mismatch there.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "h5feed/image_shape.h"
#include "h5feed/output_options.h"
#include "pipeline/own_size_sample.h"
#include "transform/augment.h"
#include "transform/mask_geometry.h"
#include "transform/normalize.h"
#include "transform/output_views.h"
#include "transform/own_size_views.h"
#include "transform/sample_normalize.h"
#include "transform/view_geometry.h"

namespace h5feed::pipeline {
namespace {

constexpr int kBlock = 32;

uint8_t ClassAt(int64_t y, int64_t x) {
  return static_cast<uint8_t>(((y / kBlock) * 7 + (x / kBlock) * 3) % 250 + 3);
}

struct Stored {
  ImageShape shape;
  std::vector<uint8_t> pixels;  // H x W x 3, each channel the class
  std::vector<uint8_t> mask;    // H x W
};

Stored Blocks(int64_t height, int64_t width) {
  Stored stored{{height, width, 3}, {}, {}};
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      stored.mask.push_back(ClassAt(y, x));
      stored.pixels.insert(stored.pixels.end(), 3, ClassAt(y, x));
    }
  }
  return stored;
}

// Two flipped random resized crops of different sizes and a flipped resize + center crop,
// delivered as uint8 NHWC (the crop's pixels as they are).
OutputOptions Views() {
  OutputOptions output;
  AugmentOptions global;
  global.random_resized_crop = {64, 64};
  global.random_flip = true;
  global.count = 2;
  AugmentOptions local;
  local.random_resized_crop = {48, 40};
  local.random_flip = true;
  AugmentOptions validation;
  validation.resize_shorter = 80;
  validation.center_crop_height = 64;
  validation.center_crop_width = 64;
  validation.random_flip = true;
  output.views = {global, local, validation};
  output.type = ElementType::kUint8;
  output.layout = Layout::kNHWC;
  return output;
}

transform::NormalizeParams Normalize() {
  const float half[3] = {0.5f, 0.5f, 0.5f};
  return transform::MakeNormalizeParams(half, half, 3, 3);
}

// Counts the pixels of a delivered view whose mask is one class over their 5 x 5 neighbourhood,
// and those of them where the image is not that class.
struct Agreement {
  int64_t checked = 0;
  int64_t mismatched = 0;
  int64_t pixels = 0;

  void Add(const std::vector<uint8_t>& image, const std::vector<uint8_t>& mask, int64_t height,
           int64_t width) {
    for (int64_t y = 2; y + 2 < height; ++y) {
      for (int64_t x = 2; x + 2 < width; ++x) {
        const uint8_t value = mask[static_cast<size_t>(y * width + x)];
        bool uniform = true;
        for (int64_t dy = -2; dy <= 2 && uniform; ++dy) {
          for (int64_t dx = -2; dx <= 2; ++dx) {
            uniform = uniform && mask[static_cast<size_t>((y + dy) * width + x + dx)] == value;
          }
        }
        if (!uniform) continue;
        ++checked;
        mismatched += image[static_cast<size_t>((y * width + x) * 3)] != value;
      }
    }
    pixels += height * width;
  }
};

std::vector<uint8_t> MaskOf(const transform::OutputViews& views, int view, const Stored& stored,
                            int64_t epoch, int64_t row, int copy) {
  const transform::SampleGeometry geometry = transform::ViewGeometry(
      views, view, stored.shape.height, stored.shape.width, epoch, row, copy);
  std::vector<uint8_t> mask(static_cast<size_t>(geometry.rows.out) * geometry.columns.out);
  transform::TransformMask(geometry, stored.mask, {stored.shape.height, stored.shape.width}, mask);
  return mask;
}

// View `view` of `image` (of `shape`: the stored image, or an own-size file's stacked crops),
// delivered as its spec says for `copy`.
std::vector<uint8_t> Delivered(const transform::OutputViews& views, int view, const uint8_t* image,
                               const ImageShape& shape, int64_t epoch, int64_t row, int copy) {
  const transform::OutputSpec& spec = views.views[static_cast<size_t>(view)];
  std::vector<uint8_t> out(static_cast<size_t>(spec.image_bytes()));
  transform::NormalizeSampleRows(image, shape, spec,
                                 transform::DrawTransform(spec.augment, epoch, row, copy), 0,
                                 spec.augment.out_height, out.data());
  return out;
}

TEST_CASE("a mask follows its image through every view of a file of one image size") {
  const Stored stored = Blocks(256, 320);
  const transform::OutputViews views =
      transform::MakeOutputViews(Normalize(), stored.shape, Views(), /*seed=*/41);
  Agreement agreement;
  for (int64_t row = 0; row < 24; ++row) {
    for (int copy = 0; copy < 2; ++copy) {
      for (int v = 0; v < views.count(); ++v) {
        const transform::AugmentParams& a = views.views[static_cast<size_t>(v)].augment;
        agreement.Add(Delivered(views, v, stored.pixels.data(), stored.shape, 3, row, copy),
                      MaskOf(views, v, stored, 3, row, copy), a.out_height, a.out_width);
      }
    }
  }
  CHECK(agreement.mismatched == 0);
  CHECK(agreement.checked > agreement.pixels / 5);
}

TEST_CASE("a mask follows its image through every view of a file of images at their own size") {
  const transform::OutputViews views = transform::MakeOwnSizeViews(
      Normalize(), ImageShape{512, 512, 3}, std::nullopt, Views(), /*seed=*/43);
  const ImageShape stacked_shape = transform::StackedShape(views);
  Agreement agreement;
  for (const Stored& stored : {Blocks(300, 420), Blocks(333, 211)}) {
    for (int64_t row = 0; row < 16; ++row) {
      // The gather: every view's crop, unflipped, into its room of the sample's stacked image.
      std::vector<uint8_t> stacked(static_cast<size_t>(stacked_shape.bytes()));
      std::vector<SampleCrop> crops;
      for (int v = 0; v < views.count(); ++v) {
        crops.push_back({views.gather_crops[static_cast<size_t>(v)],
                         transform::PlaceOf(views, v, stacked.data()),
                         transform::StackedRowStride(views)});
      }
      MakeOwnSizeSample(crops, 5, row, {stored.shape, ImageEncoding::kRaw}, stored.pixels);
      // Delivery: each view a window of it, flipped as its copy draws.
      for (int copy = 0; copy < 2; ++copy) {
        for (int v = 0; v < views.count(); ++v) {
          const transform::AugmentParams& a = views.views[static_cast<size_t>(v)].augment;
          agreement.Add(Delivered(views, v, stacked.data(), stacked_shape, 5, row, copy),
                        MaskOf(views, v, stored, 5, row, copy), a.out_height, a.out_width);
        }
      }
    }
  }
  CHECK(agreement.mismatched == 0);
  CHECK(agreement.checked > agreement.pixels / 5);
}

}  // namespace
}  // namespace h5feed::pipeline
