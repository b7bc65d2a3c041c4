#include "image/resize.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "h5feed/error.h"
#include "image/area_resize.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

int64_t RoundDiv(int64_t a, int64_t b) { return (2 * a + b) / (2 * b); }
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string ToString(Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

void CheckSize(Size s, const char* what) {
  if (s.height < 1 || s.width < 1) {
    throw MakeError(ErrorCode::kInvalidArgument, "resize: {} size {} is not positive", what,
                    ToString(s));
  }
}

// Whether the height is the side that binds when scaling `source` uniformly to cover
// (`cover`) or fit inside `target`: target.h / source.h compared with target.w / source.w,
// in integers so equal ratios compare equal.
bool HeightBinds(Size source, Size target, bool cover) {
  const int64_t by_height = int64_t{target.height} * source.width;
  const int64_t by_width = int64_t{target.width} * source.height;
  return cover ? by_height >= by_width : by_height <= by_width;
}

void Linear(const cv::Mat& src, cv::Mat& dst) {
  uint8_t* const data = dst.data;
  cv::resize(src, dst, dst.size(), 0, 0, cv::INTER_LINEAR);
  if (dst.data != data) throw Error(ErrorCode::kInternal, "cv::resize reallocated its output");
}

void Area(const cv::Mat& src, cv::Mat& dst) {
  AreaResize(src.data, src.rows, src.cols, src.step, dst.data, dst.rows, dst.cols, dst.step);
}

// Area averaging when shrinking (no aliasing, and what torchvision's antialiased resize
// approximates), bilinear when enlarging. When one side shrinks and the other grows (stretch
// to another aspect ratio), neither filter suits both axes, so the image is first shrunk
// along the shrinking axis, then enlarged along the other.
void ResizeMat(const cv::Mat& src, cv::Mat& dst) {
  if (src.size() == dst.size()) {
    uint8_t* const data = dst.data;
    src.copyTo(dst);
    if (dst.data != data) throw Error(ErrorCode::kInternal, "cv::Mat::copyTo reallocated");
    return;
  }
  const bool shrink_h = dst.rows <= src.rows, shrink_w = dst.cols <= src.cols;
  if (shrink_h && shrink_w) {
    Area(src, dst);
  } else if (!shrink_h && !shrink_w) {
    Linear(src, dst);
  } else {
    thread_local cv::Mat shrunk;
    shrunk.create(shrink_h ? dst.rows : src.rows, shrink_w ? dst.cols : src.cols, src.type());
    Area(src, shrunk);
    Linear(shrunk, dst);
  }
}

int64_t RgbBytes(Size s) { return int64_t{s.height} * s.width * 3; }

// cv::resize's INTER_LINEAR buffers: a few rows of the output and its coefficient tables.
int64_t LinearScratchBytes(int dst_width) { return int64_t{dst_width} * 64 + (64 << 10); }

void CheckBuffers(size_t src_bytes, Size src_size, Size target, size_t dest_bytes) {
  CheckSize(src_size, "source");
  CheckSize(target, "target");
  if (static_cast<int64_t>(src_bytes) != RgbBytes(src_size) ||
      static_cast<int64_t>(dest_bytes) != RgbBytes(target)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "resize: buffers of {} and {} bytes do not hold RGB images of {} and {}",
                    src_bytes, dest_bytes, ToString(src_size), ToString(target));
  }
}

}  // namespace

// Which part of the source is resized, and where in the target its image lands.
// Outside the anonymous namespace: RowResizer::State, a class of external linkage, holds one.
struct Placement {
  cv::Rect source;  // all of it, but for kCrop: the centered region that lands in the target
  cv::Rect target;  // all of it, but for kPad: the centered inside, with zero borders around
};

namespace {

Placement Place(Size src_size, Size target, ResizeMode mode) {
  Placement placement{cv::Rect(0, 0, src_size.width, src_size.height),
                      cv::Rect(0, 0, target.width, target.height)};
  switch (mode) {
    case ResizeMode::kStretch: return placement;
    case ResizeMode::kCrop: {
      // Only the centered source region that lands in the target is resized: the same result
      // as scaling the whole image and cropping, without scaling pixels that are thrown away.
      Size roi = src_size;
      if (HeightBinds(src_size, target, /*cover=*/true)) {
        roi.width = static_cast<int>(std::clamp<int64_t>(
            RoundDiv(int64_t{target.width} * src_size.height, target.height), 1, src_size.width));
      } else {
        roi.height = static_cast<int>(std::clamp<int64_t>(
            RoundDiv(int64_t{target.height} * src_size.width, target.width), 1, src_size.height));
      }
      placement.source = cv::Rect((src_size.width - roi.width) / 2,
                                  (src_size.height - roi.height) / 2, roi.width, roi.height);
      return placement;
    }
    case ResizeMode::kPad: {
      const Size inner = ScaledSourceSize(src_size, target, ResizeMode::kPad);
      placement.target = cv::Rect((target.width - inner.width) / 2,
                                  (target.height - inner.height) / 2, inner.width, inner.height);
      return placement;
    }
  }
  throw Error(ErrorCode::kInvalidArgument, "resize: unknown resize mode");
}

// The size ResizeMat's area step produces: each axis shrunk to the target, or kept when the
// target is larger along it.
Size ShrunkSize(const Placement& placement) {
  return {std::min(placement.source.height, placement.target.height),
          std::min(placement.source.width, placement.target.width)};
}

// Zeroes `dest` (a `target` RGB image) outside `inside`: the borders of a padded image, written
// before the resize fills the inside.
void ZeroOutside(const cv::Rect& inside, Size target, std::span<uint8_t> dest) {
  const size_t row_bytes = size_t{3} * target.width;
  std::memset(dest.data(), 0, row_bytes * inside.y);
  const int bottom = inside.y + inside.height;
  std::memset(dest.data() + row_bytes * bottom, 0, row_bytes * (target.height - bottom));
  const size_t left_bytes = size_t{3} * inside.x;
  const size_t right_bytes = row_bytes - left_bytes - size_t{3} * inside.width;
  if (left_bytes == 0 && right_bytes == 0) return;
  for (int y = inside.y; y < bottom; ++y) {
    uint8_t* row = dest.data() + row_bytes * y;
    std::memset(row, 0, left_bytes);
    std::memset(row + row_bytes - right_bytes, 0, right_bytes);
  }
}

}  // namespace

Size CappedSize(Size source, int max_side) {
  CheckSize(source, "source");
  const int longer = std::max(source.height, source.width);
  if (max_side <= 0 || longer <= max_side) return source;
  auto shorter = [&](int side) {
    return static_cast<int>(std::max<int64_t>(1, int64_t{side} * max_side / longer));
  };
  if (source.height >= source.width) return {max_side, shorter(source.width)};
  return {shorter(source.height), max_side};
}

Size ScaledSourceSize(Size source, Size target, ResizeMode mode) {
  CheckSize(source, "source");
  CheckSize(target, "target");
  switch (mode) {
    case ResizeMode::kStretch: return target;
    case ResizeMode::kCrop:
      // Rounded up so the scaled image always covers the target.
      if (HeightBinds(source, target, /*cover=*/true)) {
        return {target.height,
                static_cast<int>(std::max<int64_t>(
                    target.width, CeilDiv(int64_t{source.width} * target.height, source.height)))};
      }
      return {static_cast<int>(std::max<int64_t>(
                  target.height, CeilDiv(int64_t{source.height} * target.width, source.width))),
              target.width};
    case ResizeMode::kPad:
      if (HeightBinds(source, target, /*cover=*/false)) {
        return {target.height, static_cast<int>(std::clamp<int64_t>(
                                   RoundDiv(int64_t{source.width} * target.height, source.height),
                                   1, target.width))};
      }
      return {static_cast<int>(std::clamp<int64_t>(
                  RoundDiv(int64_t{source.height} * target.width, source.width), 1, target.height)),
              target.width};
  }
  throw Error(ErrorCode::kInvalidArgument, "resize: unknown resize mode");
}

void ResizeInto(std::span<const uint8_t> src, Size src_size, Size target, ResizeMode mode,
                std::span<uint8_t> dest) {
  CheckBuffers(src.size(), src_size, target, dest.size());
  const Placement placement = Place(src_size, target, mode);
  ZeroOutside(placement.target, target, dest);
  // cv::Mat headers over the caller's memory: OpenCV writes the result in place.
  const cv::Mat source(src_size.height, src_size.width, CV_8UC3, const_cast<uint8_t*>(src.data()));
  cv::Mat out(target.height, target.width, CV_8UC3, dest.data());
  cv::Mat inside = out(placement.target);
  ResizeMat(source(placement.source), inside);
}

ResizePlacement PlaceResize(Size source, Size target, ResizeMode mode) {
  CheckSize(source, "source");
  CheckSize(target, "target");
  const Placement placement = Place(source, target, mode);
  const auto rect = [](const cv::Rect& r) { return PixelRect{r.y, r.x, r.height, r.width}; };
  return {rect(placement.source), rect(placement.target)};
}

int64_t ResizeScratchBytes(Size src_size, Size target, ResizeMode mode) {
  const Placement placement = Place(src_size, target, mode);
  const Size shrunk = ShrunkSize(placement);
  // AreaResize's per-thread taps and row (bounded by AreaRowShrinker's, which adds its sums),
  // and the shrunk image when one axis is then enlarged.
  int64_t bytes = AreaRowShrinker::ScratchBytes(placement.source.height, placement.source.width,
                                                shrunk.height, shrunk.width);
  if (shrunk.height != placement.target.height || shrunk.width != placement.target.width) {
    bytes += RgbBytes(shrunk) + LinearScratchBytes(placement.target.width);
  }
  return bytes;
}

struct RowResizer::State {
  Size src_size;
  Placement placement;
  int next_row = 0;
  cv::Mat inside;  // the target's part the image lands in, over the caller's memory
  cv::Mat shrunk;  // the area-shrunk image, when bilinear enlarging follows (else empty)
  std::unique_ptr<AreaRowShrinker> shrinker;
};

RowResizer::RowResizer(Size src_size, Size target, ResizeMode mode, std::span<uint8_t> dest)
    : state_(std::make_unique<State>()) {
  CheckBuffers(static_cast<size_t>(RgbBytes(src_size)), src_size, target, dest.size());
  State& s = *state_;
  s.src_size = src_size;
  s.placement = Place(src_size, target, mode);
  ZeroOutside(s.placement.target, target, dest);
  cv::Mat out(target.height, target.width, CV_8UC3, dest.data());
  s.inside = out(s.placement.target);
  const Size shrunk = ShrunkSize(s.placement);
  // ResizeMat's steps: the area shrink of the shrinking axes (an axis kept at its size is
  // copied by it unchanged), then bilinear enlarging of the others, if any.
  cv::Mat& area_out = shrunk.height == s.inside.rows && shrunk.width == s.inside.cols
                          ? s.inside
                          : (s.shrunk.create(shrunk.height, shrunk.width, CV_8UC3), s.shrunk);
  s.shrinker =
      std::make_unique<AreaRowShrinker>(s.placement.source.height, s.placement.source.width,
                                        shrunk.height, shrunk.width, area_out.data, area_out.step);
}

RowResizer::~RowResizer() = default;

void RowResizer::AddRow(std::span<const uint8_t> row) {
  State& s = *state_;
  if (static_cast<int64_t>(row.size()) != int64_t{s.src_size.width} * 3 ||
      s.next_row >= s.src_size.height) {
    throw MakeError(ErrorCode::kInternal, "RowResizer: row {} of {} bytes for a {} RGB image",
                    s.next_row, row.size(), ToString(s.src_size));
  }
  const int y = s.next_row++;
  const cv::Rect& source = s.placement.source;
  if (y < source.y || y >= source.y + source.height) return;
  s.shrinker->AddRow(row.data() + size_t{3} * source.x);
}

void RowResizer::Finish() {
  State& s = *state_;
  if (s.next_row != s.src_size.height || !s.shrinker->done()) {
    throw MakeError(ErrorCode::kInternal, "RowResizer finished after {} of {} rows", s.next_row,
                    s.src_size.height);
  }
  if (!s.shrunk.empty()) Linear(s.shrunk, s.inside);
}

int64_t RowResizer::ScratchBytes(Size src_size, Size target, ResizeMode mode) {
  // The same taps, row and shrunk image as ResizeInto's, plus the open rows' sums, which
  // ResizeScratchBytes already counts.
  return ResizeScratchBytes(src_size, target, mode);
}

}  // namespace h5feed::converters::image
