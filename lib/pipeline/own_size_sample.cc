#include "pipeline/own_size_sample.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "decode/decoder_table.h"
#include "decode/image_decoder.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "transform/output_spec.h"
#include "transform/output_views.h"
#include "transform/resize_sample.h"

namespace h5feed::pipeline {
namespace {

// The part of the image the crop reads, in its coordinates, and the smallest size it may be
// decoded at without the resize enlarging what it shrinks.
decode::CropNeeds NeedsOf(const transform::SampleTransform& t) {
  return {{t.rows.src_begin, t.columns.src_begin, t.rows.src_size, t.columns.src_size},
          std::min<int64_t>(t.rows.resized, t.rows.src_size),
          std::min<int64_t>(t.columns.resized, t.columns.src_size)};
}

// The smallest extent of `whole` that keeps `part` at least `part_min` long at any scale (a
// decoder keeps whole / s >= result, so part / s >= part_min).
int64_t MinimumFor(int64_t whole, int64_t part, int64_t part_min) {
  return (part_min * whole + part - 1) / part;
}

// What several crops read together: the box covering every crop's, and a size at which each
// crop's own box still spans its own minimum.
decode::CropNeeds UnionOf(std::span<const decode::CropNeeds> needs) {
  decode::PixelBox box = needs.front().box;
  int64_t bottom = box.top + box.height;
  int64_t right = box.left + box.width;
  for (const decode::CropNeeds& n : needs) {
    box.top = std::min(box.top, n.box.top);
    box.left = std::min(box.left, n.box.left);
    bottom = std::max(bottom, n.box.top + n.box.height);
    right = std::max(right, n.box.left + n.box.width);
  }
  box.height = bottom - box.top;
  box.width = right - box.left;
  decode::CropNeeds all{box, 0, 0};
  for (const decode::CropNeeds& n : needs) {
    all.min_height = std::max(all.min_height, MinimumFor(box.height, n.box.height, n.min_height));
    all.min_width = std::max(all.min_width, MinimumFor(box.width, n.box.width, n.min_width));
  }
  return all;
}

// `axis` (in the full image) moved into a region decoded at 1/scale whose first pixel is
// `region_begin` of the scaled image and which is `region_size` long. At full scale the
// window is the same pixels (for a whole image, the same window); scaled, its ends fall inside
// scaled pixels, and the window keeps them (ResizeAxis's fractions) within the whole pixels it
// overlaps.
transform::ResizeAxis IntoRegion(transform::ResizeAxis axis, int scale, int64_t region_begin,
                                 int64_t region_size) {
  if (scale == 1) {
    const int64_t begin = std::clamp<int64_t>(axis.src_begin - region_begin, 0, region_size - 1);
    const int64_t end = std::clamp<int64_t>(int64_t{axis.src_begin} + axis.src_size - region_begin,
                                            begin + 1, region_size);
    axis.src_begin = static_cast<int32_t>(begin);
    axis.src_size = static_cast<int32_t>(end - begin);
    return axis;
  }
  const auto size = static_cast<double>(region_size);
  const double begin =
      std::clamp(static_cast<double>(axis.src_begin) / scale - static_cast<double>(region_begin),
                 0.0, size - 1.0);
  const double end =
      std::clamp(static_cast<double>(int64_t{axis.src_begin} + axis.src_size) / scale -
                     static_cast<double>(region_begin),
                 begin + 1.0 / scale, size);
  const auto first = static_cast<int64_t>(std::floor(begin));
  const int64_t last = std::min(static_cast<int64_t>(std::ceil(end)), region_size);
  axis.src_begin = static_cast<int32_t>(first);
  axis.src_size = static_cast<int32_t>(last - first);
  axis.fraction_begin = static_cast<float>(begin - static_cast<double>(first));
  axis.fraction_size = static_cast<float>(end - begin);
  return axis;
}

}  // namespace

void MakeOwnSizeSample(std::span<const SampleCrop> crops, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored,
                       bool region_decode) {
  constexpr size_t kMaxCrops = transform::OutputViews::kMaxViews;
  if (crops.empty() || crops.size() > kMaxCrops) {
    throw MakeError(ErrorCode::kInternal, "own-size sample: {} crops (1 to {})", crops.size(),
                    kMaxCrops);
  }
  std::array<transform::AugmentParams, kMaxCrops> params;
  std::array<transform::SampleTransform, kMaxCrops> transforms;
  std::array<decode::CropNeeds, kMaxCrops> needs;
  for (size_t i = 0; i < crops.size(); ++i) {
    params[i] = transform::ForImage(crops[i].crop, sample.shape.height, sample.shape.width);
    transforms[i] = transform::DrawTransform(params[i], epoch, row, 0);
    transforms[i].flip = false;  // the flip comes after, with every file's normalization
    needs[i] = NeedsOf(transforms[i]);
  }
  thread_local decode::DecodeScratch scratch;
  const decode::DecodedImage decoded =
      decode::DecoderFor(sample.encoding)
          .Decode(stored, sample.shape, UnionOf(std::span(needs).first(crops.size())), scratch,
                  decode::DecodeOptions{region_decode});
  const decode::DecodedRegion& region = decoded.region;
  const ImageShape shape{region.height, region.width, region.channels};
  for (size_t i = 0; i < crops.size(); ++i) {
    transform::SampleTransform& t = transforms[i];
    t.rows = IntoRegion(t.rows, region.scale, region.top, region.height);
    t.columns = IntoRegion(t.columns, region.scale, region.left, region.width);
    transform::ResizeSampleRows(decoded.pixels, shape, t, params[i].antialias, 0,
                                params[i].out_height, crops[i].dest, crops[i].row_stride);
  }
}

void MakeOwnSizeSample(const transform::AugmentParams& crop, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest,
                       bool region_decode) {
  const SampleCrop one{crop, dest, 0};
  MakeOwnSizeSample(std::span(&one, 1), epoch, row, sample, stored, region_decode);
}

void MakeWholeSample(const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest) {
  thread_local decode::DecodeScratch scratch;
  const decode::DecodedImage decoded =
      decode::DecoderFor(sample.encoding)
          .Decode(stored, sample.shape, decode::CropNeeds::Whole(sample.shape), scratch);
  const decode::DecodedRegion& region = decoded.region;
  if (region.scale != 1 || region.top != 0 || region.left != 0 ||
      region.height != sample.shape.height || region.width != sample.shape.width ||
      region.channels != sample.shape.channels) {
    throw MakeError(ErrorCode::kInternal,
                    "whole decode of a {}x{}x{} image delivered a {}x{}x{} region at ({}, {}), "
                    "scale 1/{}",
                    sample.shape.height, sample.shape.width, sample.shape.channels, region.height,
                    region.width, region.channels, region.top, region.left, region.scale);
  }
  std::memcpy(dest, decoded.pixels, static_cast<size_t>(sample.shape.bytes()));
}

}  // namespace h5feed::pipeline
