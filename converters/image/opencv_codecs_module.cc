// h5feed-opencv-codecs.so: OpenCV's imgcodecs behind one C function (opencv_codecs_module.h),
// loaded by opencv_decoder.cc at the first BMP, PNM or TIFF file.

#include "image/opencv_codecs_module.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <string>
#include <type_traits>

namespace {

int Fail(int status, const std::string& reason, char* message, size_t message_size) {
  if (message_size > 0) std::snprintf(message, message_size, "%s", reason.c_str());
  return status;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int h5feed_opencv_decode_rgb(
    const uint8_t* encoded, size_t encoded_size, int height, int width, uint8_t* rgb, char* message,
    size_t message_size) {
  using namespace h5feed::converters::image;
  static_assert(std::is_same_v<decltype(&h5feed_opencv_decode_rgb), OpenCvDecodeFunction>);
  cv::Mat bgr;
  try {
    // OpenCV needs its own BGR buffer: imdecode cannot write into memory it does not own.
    bgr = cv::imdecode(cv::_InputArray(encoded, static_cast<int>(encoded_size)),
                       cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& e) {
    return Fail(kOpenCvUnreadable, std::string("OpenCV cannot decode it: ") + e.what(), message,
                message_size);
  }
  if (bgr.empty()) {
    return Fail(kOpenCvUnreadable, "damaged, truncated or unsupported data", message, message_size);
  }
  if (bgr.type() != CV_8UC3 || bgr.rows != height || bgr.cols != width) {
    return Fail(kOpenCvWrongSize,
                "OpenCV decoded " + std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) +
                    " pixels but the header says " + std::to_string(width) + "x" +
                    std::to_string(height),
                message, message_size);
  }
  // A header over the caller's memory: cvtColor writes the result in place (same size, type).
  cv::Mat out(height, width, CV_8UC3, rgb);
  cv::cvtColor(bgr, out, cv::COLOR_BGR2RGB);
  if (out.data != rgb) {
    return Fail(kOpenCvInternal, "cv::cvtColor reallocated its output", message, message_size);
  }
  return kOpenCvDecoded;
}
