#pragma once
// The plain normalization (float32 C x H x W at the stored size, no augmentation: the default
// OutputOptions) as the pipeline tests compare with it: NormalizeBatch with that spec.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "h5feed/output_options.h"
#include "pipeline/cpu_normalize.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"

namespace h5feed::testing {

// Throws what MakeOutputSpec and NormalizeBatch throw: parameters of other channels than the
// images', rows outside `src`.
inline void NormalizePlain(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                           const transform::NormalizeParams& params, std::span<float> dest) {
  pipeline::NormalizeBatch(
      src, shape, images, transform::MakeOutputSpec(params, shape, OutputOptions{}, 0),
      pipeline::SampleKeys{}, {reinterpret_cast<uint8_t*>(dest.data()), dest.size_bytes()});
}

}  // namespace h5feed::testing
