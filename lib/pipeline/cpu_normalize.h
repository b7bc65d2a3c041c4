#pragma once
// Normalization of a batch on the CPU, for loaders that deliver host batches: each sample as
// transform/sample_normalize.h makes it (bit for bit the GPU kernel's result), the samples and
// their rows spread over the calling arena's threads.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"
#include "transform/output_views.h"

namespace h5feed::pipeline {

// Which draws a batch's samples take (transform/augment.h): sample i is dataset row rows[i],
// echo copy `copy` of epoch `epoch`. rows may be empty when spec.augment.random() is false.
struct SampleKeys {
  int64_t epoch = 0;
  int copy = 0;
  std::span<const int64_t> rows;
};

// Normalizes `images` images: src holds images x H x W x C bytes, dest images x
// spec.image_bytes(). Runs in parallel (tbb::parallel_for in the calling arena) over
// (image, delivered row) pairs, so one large image spreads over the workers as well as a
// batch of small ones. Throws Error(kInternal) when a span is too small, when
// spec.normalize.channels != C, or when augmentation needs keys.rows and it is short.
void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const transform::OutputSpec& spec, const SampleKeys& keys,
                    std::span<uint8_t> dest);

// Every view of `images` images into `dest`, an output region laid out for `capacity` samples
// as `views` says (transform/output_views.h). Same errors as above.
void NormalizeViews(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const transform::OutputViews& views, const SampleKeys& keys, int64_t capacity,
                    std::span<uint8_t> dest);

}  // namespace h5feed::pipeline
