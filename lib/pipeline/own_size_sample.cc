#include "pipeline/own_size_sample.h"

#include <algorithm>
#include <cmath>

#include "decode/decoder_table.h"
#include "decode/image_decoder.h"
#include "transform/output_spec.h"
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

// `axis` (in the full image) moved into a region decoded at 1/scale whose first pixel is
// `region_begin` of the scaled image and which is `region_size` long. At full scale the
// window is the same pixels (for a whole image, the same window); scaled, its ends are rounded
// to the nearest scaled pixel.
transform::ResizeAxis IntoRegion(transform::ResizeAxis axis, int scale, int64_t region_begin,
                                 int64_t region_size) {
  const auto scaled = [scale](int64_t x) {
    return static_cast<int64_t>(std::llround(static_cast<double>(x) / scale));
  };
  int64_t begin = scaled(axis.src_begin) - region_begin;
  int64_t end = scaled(int64_t{axis.src_begin} + axis.src_size) - region_begin;
  begin = std::clamp<int64_t>(begin, 0, region_size - 1);
  end = std::clamp<int64_t>(end, begin + 1, region_size);
  axis.src_begin = static_cast<int32_t>(begin);
  axis.src_size = static_cast<int32_t>(end - begin);
  return axis;
}

}  // namespace

void MakeOwnSizeSample(const transform::AugmentParams& crop, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest,
                       bool region_decode) {
  const transform::AugmentParams params =
      transform::ForImage(crop, sample.shape.height, sample.shape.width);
  transform::SampleTransform t = transform::DrawTransform(params, epoch, row, 0);
  t.flip = false;  // the flip comes after, with every file's normalization
  thread_local decode::DecodeScratch scratch;
  const decode::DecodedImage decoded =
      decode::DecoderFor(sample.encoding)
          .Decode(stored, sample.shape, NeedsOf(t), scratch, decode::DecodeOptions{region_decode});
  const decode::DecodedRegion& region = decoded.region;
  t.rows = IntoRegion(t.rows, region.scale, region.top, region.height);
  t.columns = IntoRegion(t.columns, region.scale, region.left, region.width);
  const ImageShape shape{region.height, region.width, region.channels};
  transform::ResizeSampleRows(decoded.pixels, shape, t, params.antialias, 0, params.out_height,
                              dest);
}

}  // namespace h5feed::pipeline
