#include "pipeline/cpu_normalize.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/augment.h"
#include "transform/sample_normalize.h"

namespace h5feed::pipeline {

void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const transform::OutputSpec& spec, const SampleKeys& keys,
                    std::span<uint8_t> dest) {
  const int64_t image_bytes = shape.bytes();
  const int64_t out_bytes = spec.image_bytes();
  if (spec.normalize.channels != shape.channels) {
    throw MakeError(ErrorCode::kInternal,
                    "normalize: parameters for {} channels applied to images of {}",
                    spec.normalize.channels, shape.channels);
  }
  if (images < 0 || static_cast<int64_t>(src.size()) < images * image_bytes ||
      static_cast<int64_t>(dest.size()) < images * out_bytes ||
      (spec.augment.random() && static_cast<int64_t>(keys.rows.size()) < images)) {
    throw MakeError(ErrorCode::kInternal, "normalize: buffers too small for {} images", images);
  }
  if (images == 0 || out_bytes == 0) return;
  const int64_t height = spec.augment.out_height;
  // About 32 KiB of pixels per task: small enough to balance 2-64 workers on one 224x224
  // image, large enough that a task's scheduling stays a negligible share of its work
  // (docs/reader.md, step 5, "Deliver").
  const int64_t row_bytes = spec.augment.out_width * shape.channels;
  const int64_t grain = std::max<int64_t>(1, (int64_t{32} << 10) / std::max<int64_t>(1, row_bytes));
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, images * height, static_cast<size_t>(grain)),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      int64_t r = range.begin();
                      while (r < range.end()) {
                        const int64_t image = r / height;
                        const int64_t row_begin = r % height;
                        const int64_t row_end = std::min(height, row_begin + (range.end() - r));
                        // A resize without draws still has its geometry from DrawTransform.
                        const bool random = spec.augment.random();
                        const transform::SampleTransform transform =
                            random || spec.augment.resizes()
                                ? transform::DrawTransform(
                                      spec.augment, keys.epoch,
                                      random ? keys.rows[static_cast<size_t>(image)] : 0, keys.copy)
                                : transform::SampleTransform{};
                        transform::NormalizeSampleRows(src.data() + image * image_bytes, shape,
                                                       spec, transform, row_begin, row_end,
                                                       dest.data() + image * out_bytes);
                        r += row_end - row_begin;
                      }
                    });
}

void NormalizeViews(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const transform::OutputViews& views, const SampleKeys& keys, int64_t capacity,
                    std::span<uint8_t> dest) {
  for (int v = 0; v < views.count(); ++v) {
    const size_t offset = views.offset(v, capacity);
    if (offset > dest.size()) throw Error(ErrorCode::kInternal, "normalize: views overflow");
    NormalizeBatch(src, shape, images, views.views[static_cast<size_t>(v)], keys,
                   dest.subspan(offset));
  }
}

}  // namespace h5feed::pipeline
