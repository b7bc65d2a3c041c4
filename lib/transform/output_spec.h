#pragma once
// Everything that decides one delivered view of a normalized image, shared by the CPU path
// (sample_normalize.h) and the GPU kernel (cuda/normalize_kernel.cu): the per-channel factors,
// the delivered geometry and augmentation, the element type and the layout. A value type,
// passed to kernels by value (under 200 bytes). A loader's views are output_views.h.
//
// Delivered element (n, c, y, x) of a batch lies at
//   NCHW: ((n * C + c) * Ho + y) * Wo + x        NHWC: ((n * Ho + y) * Wo + x) * C + c
// in elements of ElementBytes(type) bytes (float16 and bfloat16 are stored as their bits).
//
// Header: C++17, host/device-neutral. MakeOutputSpec (output_spec.cc) is host only.

#include <cstddef>
#include <cstdint>
#include <string>

#include "h5feed/option_names.h"
#include "h5feed/output_options.h"
#include "transform/augment.h"
#include "transform/normalize.h"

namespace h5feed {
struct ImageShape;  // h5feed/image_shape.h is C++20; nvcc compiles this header as C++17
}  // namespace h5feed

namespace h5feed::transform {

struct OutputSpec {
  NormalizeParams normalize;
  AugmentParams augment;
  ElementType type = ElementType::kFloat32;
  Layout layout = Layout::kNCHW;

  H5FEED_HOST_DEVICE int64_t image_elements() const {
    return int64_t{augment.out_height} * augment.out_width * normalize.channels;
  }
  H5FEED_HOST_DEVICE int64_t image_bytes() const {
    const int64_t element = type == ElementType::kFloat32 ? 4 : type == ElementType::kUint8 ? 1 : 2;
    return image_elements() * element;
  }
};

// View `view` of images of `shape`, normalized with `normalize` (MakeNormalizeParams),
// augmented as `augment` says and delivered as output.type and output.layout (uint8: the
// augmented pixels as they are, `normalize` left out: a trainer's own GPU transforms take
// them); `seed` keys the
// augmentation draws (the loader's seed). `option` is the path of the view spec's options
// ("output.augment", "output.views[1]"), which errors name as `names` spells it
// (option_names.h; empty: "LoaderOptions.output.augment.center_crop"). Throws
// Error(kInvalidArgument) naming the option for a center crop larger than the image (or the resized
// image) or with one side only, a negative padding or one above 4096, a random resized crop
// combined with another crop or with sizes, scales or ratios out of range, and Error(kUnsupported)
// for an element type that is not uint8, float32, float16 or bfloat16.
OutputSpec MakeViewSpec(const NormalizeParams& normalize, const ImageShape& shape,
                        const AugmentOptions& augment, const OutputOptions& output, uint64_t seed,
                        int view, const std::string& option, const OptionNames& names = {});

// The size Resize(S) gives an H x W image (torchvision's _compute_resized_output_size): the
// shorter side S = `shorter`, the longer int(S x long / short), truncated.
void ResizedSize(const ImageShape& shape, int64_t shorter, int64_t& height, int64_t& width);

// `params` (a kRandomResized or kResize crop) for one H x W image of a file of images at their
// own size: the image's size, and for kResize its resized size and the center crop's origin,
// computed as MakeViewSpec computes them for a file of H x W images. Other kinds come back
// with the image's size only.
AugmentParams ForImage(const AugmentParams& params, int64_t height, int64_t width);

// The single view output.augment asks for (view 0).
OutputSpec MakeOutputSpec(const NormalizeParams& normalize, const ImageShape& shape,
                          const OutputOptions& output, uint64_t seed,
                          const OptionNames& names = {});

}  // namespace h5feed::transform
