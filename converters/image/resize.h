#pragma once
// Fits a decoded RGB image to the stored size, writing into caller-provided memory.

#include <cstdint>
#include <memory>
#include <span>

#include "enum_names.h"

namespace h5feed::converters::image {

enum class ResizeMode {
  kCrop,     // scale so the image covers the target (shorter side fits), center-crop: the default
  kStretch,  // scale each side independently to the target (aspect ratio not kept)
  kPad,      // scale so the image fits inside the target (longer side fits), center it on zeros
};

}  // namespace h5feed::converters::image

namespace h5feed {

// The words of `h5feed convert imagefolder --resize` and convert_imagefolder(resize=...).
template <>
struct EnumNames<converters::image::ResizeMode> {
  using Mode = converters::image::ResizeMode;
  static constexpr std::string_view what = "resize";
  static constexpr NamedValue<Mode> names[] = {
      {Mode::kCrop, "crop"}, {Mode::kStretch, "stretch"}, {Mode::kPad, "pad"}};
};

}  // namespace h5feed

namespace h5feed::converters::image {

struct Size {
  int height = 0;
  int width = 0;
};

// The size an image of `source` is stored at under a cap of `max_side` on its longer side
// (`h5feed convert --max-side`): unchanged when its longer side is at most max_side (or
// max_side is 0: no cap); otherwise the longer side becomes max_side and the shorter
// floor(shorter * max_side / longer), at least 1, so the aspect ratio is kept and nothing is
// enlarged.
Size CappedSize(Size source, int max_side);

// The smallest decoded size that loses nothing for `mode`: the size of the source image once
// scaled for the target (before cropping or padding). A JPEG can be decoded at a DCT scale
// down to this size without loss of final quality.
Size ScaledSourceSize(Size source, Size target, ResizeMode mode);

// A rectangle of pixels: rows [top, top + height), columns [left, left + width).
struct PixelRect {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

// Where ResizeInto puts an image of `source` in `target` for `mode`: its part `from` (all of it,
// but for kCrop the centered part that lands in the target) is resized to the size of `to` and
// lands there (all of the target, but for kPad the centered inside, zero borders around). What
// is converted with an image, a mask or boxes, follows it (transform/sample_geometry.h,
// PlacedGeometry), computed on the source's full size: a JPEG decoded at a DCT scale places its
// scaled pixels at this geometry to within a source pixel per scale step.
struct ResizePlacement {
  PixelRect from;
  PixelRect to;
};
ResizePlacement PlaceResize(Size source, Size target, ResizeMode mode);

// Resizes `src` (src_size, RGB, channels last) into `dest` (target, RGB, channels last).
// Area interpolation when shrinking (OpenCV's INTER_AREA, computed by area_resize.h), bilinear
// when enlarging (cv::resize INTER_LINEAR). Copies when the sizes are equal. Thread-safe.
void ResizeInto(std::span<const uint8_t> src, Size src_size, Size target, ResizeMode mode,
                std::span<uint8_t> dest);

// An upper bound of the memory ResizeInto allocates for these sizes (beyond src and dest).
int64_t ResizeScratchBytes(Size src_size, Size target, ResizeMode mode);

// ResizeInto for an image that arrives one row at a time, top to bottom (a PNG decoded row by
// row), holding memory proportional to its width, not its area: rows outside the crop are
// dropped as they come, the area shrink runs row by row (AreaRowShrinker), and what follows it
// (bilinear enlarging, the padding) works on images no larger than the target. The pixels are
// ResizeInto's, exactly.
//
// Thread-safety: one instance per thread; it writes only `dest`, which must outlive it.
class RowResizer {
 public:
  // Throws Error(kInvalidArgument) as ResizeInto does for bad sizes or buffers.
  RowResizer(Size src_size, Size target, ResizeMode mode, std::span<uint8_t> dest);
  ~RowResizer();
  RowResizer(const RowResizer&) = delete;
  RowResizer& operator=(const RowResizer&) = delete;

  // The next source row: src_size.width RGB pixels.
  void AddRow(std::span<const uint8_t> row);
  // Completes `dest` once every source row was added; throws Error(kInternal) before that.
  void Finish();

  // An upper bound of the memory an instance holds for these sizes.
  static int64_t ScratchBytes(Size src_size, Size target, ResizeMode mode);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace h5feed::converters::image
