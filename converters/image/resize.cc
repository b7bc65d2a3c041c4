#include "image/resize.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "h5feed/error.h"
#include "image/area_resize.h"

namespace h5feed::image {
namespace {

int64_t RoundDiv(int64_t a, int64_t b) { return (2 * a + b) / (2 * b); }
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string ToString(Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

void CheckSize(Size s, const char* what) {
  if (s.height < 1 || s.width < 1) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string("resize: ") + what + " size " + ToString(s) + " is not positive");
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

}  // namespace

Size ScaledSourceSize(Size source, Size target, ResizeMode mode) {
  CheckSize(source, "source");
  CheckSize(target, "target");
  switch (mode) {
    case ResizeMode::kStretch:
      return target;
    case ResizeMode::kCrop:
      // Rounded up so the scaled image always covers the target.
      if (HeightBinds(source, target, /*cover=*/true)) {
        return {target.height, static_cast<int>(std::max<int64_t>(
                                   target.width, CeilDiv(int64_t{source.width} * target.height,
                                                         source.height)))};
      }
      return {static_cast<int>(std::max<int64_t>(
                  target.height, CeilDiv(int64_t{source.height} * target.width, source.width))),
              target.width};
    case ResizeMode::kPad:
      if (HeightBinds(source, target, /*cover=*/false)) {
        return {target.height,
                static_cast<int>(std::clamp<int64_t>(
                    RoundDiv(int64_t{source.width} * target.height, source.height), 1,
                    target.width))};
      }
      return {static_cast<int>(std::clamp<int64_t>(
                  RoundDiv(int64_t{source.height} * target.width, source.width), 1,
                  target.height)),
              target.width};
  }
  throw Error(ErrorCode::kInvalidArgument, "resize: unknown resize mode");
}

void ResizeInto(std::span<const uint8_t> src, Size src_size, Size target, ResizeMode mode,
                std::span<uint8_t> dest) {
  CheckSize(src_size, "source");
  CheckSize(target, "target");
  if (static_cast<int64_t>(src.size()) != int64_t{src_size.height} * src_size.width * 3 ||
      static_cast<int64_t>(dest.size()) != int64_t{target.height} * target.width * 3) {
    throw Error(ErrorCode::kInvalidArgument,
                "resize: buffers of " + std::to_string(src.size()) + " and " +
                    std::to_string(dest.size()) + " bytes do not hold RGB images of " +
                    ToString(src_size) + " and " + ToString(target));
  }
  // cv::Mat headers over the caller's memory: OpenCV writes the result in place.
  const cv::Mat source(src_size.height, src_size.width, CV_8UC3,
                       const_cast<uint8_t*>(src.data()));
  cv::Mat out(target.height, target.width, CV_8UC3, dest.data());

  switch (mode) {
    case ResizeMode::kStretch: {
      ResizeMat(source, out);
      return;
    }
    case ResizeMode::kCrop: {
      // Only the centered source region that lands in the target is resized: the same result
      // as scaling the whole image and cropping, without scaling pixels that are thrown away.
      Size roi = src_size;
      if (HeightBinds(src_size, target, /*cover=*/true)) {
        roi.width = static_cast<int>(std::clamp<int64_t>(
            RoundDiv(int64_t{target.width} * src_size.height, target.height), 1, src_size.width));
      } else {
        roi.height = static_cast<int>(std::clamp<int64_t>(
            RoundDiv(int64_t{target.height} * src_size.width, target.width), 1,
            src_size.height));
      }
      const cv::Rect rect((src_size.width - roi.width) / 2, (src_size.height - roi.height) / 2,
                          roi.width, roi.height);
      ResizeMat(source(rect), out);
      return;
    }
    case ResizeMode::kPad: {
      const Size inner = ScaledSourceSize(src_size, target, ResizeMode::kPad);
      const int top = (target.height - inner.height) / 2;
      const int left = (target.width - inner.width) / 2;
      // Zero only the border: the inside is written by the resize.
      const size_t row_bytes = size_t{3} * target.width;
      std::memset(dest.data(), 0, row_bytes * top);
      const int bottom = top + inner.height;
      std::memset(dest.data() + row_bytes * bottom, 0, row_bytes * (target.height - bottom));
      const size_t left_bytes = size_t{3} * left;
      const size_t right_bytes = row_bytes - left_bytes - size_t{3} * inner.width;
      for (int y = top; y < bottom; ++y) {
        uint8_t* row = dest.data() + row_bytes * y;
        std::memset(row, 0, left_bytes);
        std::memset(row + row_bytes - right_bytes, 0, right_bytes);
      }
      cv::Mat inside = out(cv::Rect(left, top, inner.width, inner.height));
      ResizeMat(source, inside);
      return;
    }
  }
  throw Error(ErrorCode::kInvalidArgument, "resize: unknown resize mode");
}

}  // namespace h5feed::image
