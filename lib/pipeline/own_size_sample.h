#pragma once
// The slot image of one sample of a file of images at their own size (docs/format.md, version
// 2): its stored bytes, in whatever encoding the file's table says, cropped and resized as each
// view's crop says into Ho x Wo x C uint8 (transform/own_size_views.h places them).
// RandomResizedCrop draws its box from the image's own height and width, exactly as torchvision's
// get_params does on that image (transform/resized_crop.h); Resize then CenterCrop resizes the
// image's own shorter side. The flip and the normalization follow as for every file, on the CPU or
// the GPU, so an own-size file's samples meet the rest of the pipeline as rows of one shape.
//
// The image's decoder (decode/decoder_table.h) delivers only what the crop reads: the box and
// the smallest size it may be decoded at go to it, and the crop reads the region it returns, at
// its scale. A JPEG is so decoded in part and in the DCT at 1/2, 1/4 or 1/8 when the box
// shrinks that much (decode/jpeg_image_decoder.h; at full scale the pixels equal a full
// decode's, a scaled decode differs slightly: docs/reader.md, "Images at their own size"), raw
// pixels are read in place.
//
// Thread-safe: each thread decodes with its own decoder and scratch memory.

#include <cstdint>
#include <span>

#include "h5feed/image_encoding.h"
#include "h5feed/image_shape.h"
#include "transform/augment.h"

namespace h5feed::pipeline {

struct OwnSizeSample {
  ImageShape shape;  // as stored (decoded)
  ImageEncoding encoding = ImageEncoding::kRaw;
};

// One crop to make of a sample: `crop` (kRandomResized or kResize at its base size;
// transform::ForImage gives this image's), written as crop.out_height rows of crop.out_width x
// C bytes from `dest`, each `row_stride` bytes after the one before (0: packed).
struct SampleCrop {
  transform::AugmentParams crop;
  uint8_t* dest = nullptr;
  int64_t row_stride = 0;
};

// Makes every crop of `crops` of the sample (its views: transform/own_size_views.h) for epoch
// `epoch`, dataset row `row`, echo copy 0, decoding the stored bytes once: the region that
// covers every crop's box, at the coarsest scale at which each box still spans its crop's
// output. `region_decode` false decodes every image whole at full scale first (what FFCV does;
// for comparison). Throws Error(kCorrupt) for stored bytes that do not decode to `sample`'s
// shape, or an encoding no decoder has.
void MakeOwnSizeSample(std::span<const SampleCrop> crops, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored,
                       bool region_decode = true);

// The one-crop case: crop.out_height x crop.out_width x C packed bytes at `dest`.
void MakeOwnSizeSample(const transform::AugmentParams& crop, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest,
                       bool region_decode = true);

// A sample of a file of images at their own size whose images all have one size, read without a
// crop (loader/reading_plan.h): its stored bytes decoded whole at full scale, sample.shape.bytes()
// packed bytes at `dest`, the pixels a file of that one size would store. Throws Error(kCorrupt)
// for stored bytes that do not decode to `sample`'s shape, or an encoding no decoder has.
void MakeWholeSample(const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest);

}  // namespace h5feed::pipeline
