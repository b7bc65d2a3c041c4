#pragma once
// The converter's path for one image, as the image fuzz targets drive it: PlanDecode (the
// format told by the first bytes, a JPEG allowed to decode at a reduced DCT scale), Decode
// into a buffer of the planned size, and a resize to a small stored size in each ResizeMode;
// and for an image that can be decoded row by row (a PNG that is not interlaced), the same
// through DecodeRows and RowResizer, which must give the same pixels, or fail as Decode does.
// One target per decoder keeps each fuzzer's corpus to one format; inputs of another format
// are rejected from that corpus (libFuzzer: return -1).

#include <cstdint>
#include <span>
#include <vector>

#include "fuzz_support.h"
#include "image/image_decoder.h"
#include "image/resize.h"

namespace h5feed::fuzzing {

namespace image = converters::image;

// The harness decodes images of at most 16 MiB (a 2364 x 2364 RGB image): larger ones are legal
// (image/decode_checks.h allows up to 2 GiB) but a 60-byte header asking for 2 GiB would turn
// every fuzzing run into an out-of-memory report about the harness's own buffer.
inline constexpr int64_t kMaxFuzzedImageBytes = int64_t{16} << 20;

inline int DecodeAndResize(std::span<const uint8_t> encoded, image::Format format) {
  int result = 0;
  ExpectCleanErrorsOnly([&] {
    const image::DecodePlan plan = image::PlanDecode(encoded, "fuzzed image", 8, 8);
    if (plan.format != format) {
      result = -1;
      return;
    }
    if (plan.height < 1 || plan.width < 1 || plan.height > plan.full_height ||
        plan.width > plan.full_width) {
      Finding("PlanDecode returned an impossible size");
    }
    if (plan.bytes() > kMaxFuzzedImageBytes) return;
    std::vector<uint8_t> rgb(static_cast<size_t>(plan.bytes()));
    image::Decode(encoded, plan, "fuzzed image", rgb);
    const image::Size source{plan.height, plan.width};
    const image::Size target{7, 5};
    std::vector<uint8_t> stored(static_cast<size_t>(target.height * target.width * 3));
    for (image::ResizeMode mode :
         {image::ResizeMode::kCrop, image::ResizeMode::kStretch, image::ResizeMode::kPad}) {
      image::ResizeInto(rgb, source, target, mode, stored);
      if (!plan.rows_in_order) continue;
      std::vector<uint8_t> streamed(stored.size());
      image::RowResizer resizer(source, target, mode, streamed);
      image::DecodeRows(encoded, plan, "fuzzed image",
                        [&](std::span<const uint8_t> row) { resizer.AddRow(row); });
      resizer.Finish();
      if (streamed != stored) Finding("row-by-row decoding and resizing gave other pixels");
    }
  });
  return result;
}

}  // namespace h5feed::fuzzing
