#pragma once
// The slot image of one sample of a file of images at their own size (docs/format.md, version
// 2): its stored bytes, raw pixels or a JPEG, cropped and resized as the view's crop says into
// Ho x Wo x C uint8. RandomResizedCrop draws its box from the image's own height and width,
// exactly as torchvision's get_params does on that image (transform/resized_crop.h); Resize then
// CenterCrop resizes the image's own shorter side. The flip and the normalization follow as for
// every file, on the CPU or the GPU, so an own-size file's samples meet the rest of the
// pipeline as rows of one size.
//
// A JPEG is decoded only where the crop reads: rows above and below the box are skipped,
// columns narrowed to the JPEG's blocks around it, and when the box shrinks by 2, 4 or 8 or
// more it is decoded at that scale in the DCT (decode/jpeg_region_decoder.h). At full scale
// the pixels equal a full decode's; a scaled decode differs slightly (docs/reader.md,
// "Images at their own size").
//
// Thread-safe: each thread decodes with its own decoder and scratch memory.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "transform/augment.h"

namespace h5feed::pipeline {

struct OwnSizeSample {
  ImageShape shape;   // as stored (decoded)
  bool jpeg = false;  // the stored bytes are a JPEG file's; else shape.bytes() raw pixels
};

// Writes crop.out_height x crop.out_width x shape.channels bytes to `dest`: the sample's crop
// (kRandomResized or kResize, at the base size of `crop`, transform::ForImage giving this
// image's) for epoch `epoch`, dataset row `row`, echo copy 0. `region_decode` false decodes
// every JPEG whole at full scale first (what FFCV does; for comparison). Throws
// Error(kCorrupt) for a JPEG that does not decode or whose header differs from `sample`.
void MakeOwnSizeSample(const transform::AugmentParams& crop, int64_t epoch, int64_t row,
                       const OwnSizeSample& sample, std::span<const uint8_t> stored, uint8_t* dest,
                       bool region_decode = true);

}  // namespace h5feed::pipeline
