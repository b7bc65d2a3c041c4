#include "image/area_resize.h"

#include <doctest/doctest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::converters::image {
namespace {

cv::Mat Random(int height, int width, uint64_t seed) {
  cv::Mat image(height, width, CV_8UC3);
  cv::RNG rng(seed);
  rng.fill(image, cv::RNG::UNIFORM, 0, 256);
  return image;
}

cv::Mat Area(const cv::Mat& src, int height, int width) {
  cv::Mat dst(height, width, CV_8UC3);
  AreaResize(src.data, src.rows, src.cols, src.step, dst.data, height, width, dst.step);
  return dst;
}

struct Case {
  int src_h, src_w, dst_h, dst_w;
};

// Integer and fractional ratios, ratios near 1 (edges that fall within ComputeTaps's
// tolerance), one output row or column, an unchanged axis, tall thin images.
const Case kCases[] = {{300, 299, 224, 224}, {448, 448, 224, 224},   {37, 53, 10, 11},
                       {100, 100, 99, 1},    {5, 700, 5, 3},         {224, 224, 224, 224},
                       {301, 403, 76, 101},  {9, 9, 1, 1},           {1001, 17, 1000, 16},
                       {2000, 3, 7, 3},      {3001, 2999, 224, 224}, {64, 64, 63, 64}};

cv::Mat RandomSource(const Case& c) {
  return Random(c.src_h, c.src_w, static_cast<uint64_t>(c.src_h * 1000 + c.dst_w));
}

std::string Describe(const Case& c) {
  return std::to_string(c.src_h) + "x" + std::to_string(c.src_w) + " -> " +
         std::to_string(c.dst_h) + "x" + std::to_string(c.dst_w) + " (HxW)";
}

TEST_CASE("area shrinking equals OpenCV's INTER_AREA to within one level") {
  for (const Case& c : kCases) {
    INFO(Describe(c));
    const cv::Mat src = RandomSource(c);
    cv::Mat expected;
    cv::resize(src, expected, cv::Size(c.dst_w, c.dst_h), 0, 0, cv::INTER_AREA);
    const cv::Mat ours = Area(src, c.dst_h, c.dst_w);
    CHECK(cv::norm(ours, expected, cv::NORM_INF) <= 1);
  }
}

TEST_CASE("a uniform image stays exactly uniform") {
  const cv::Mat src(123, 77, CV_8UC3, cv::Scalar(255, 7, 128));
  const cv::Mat out = Area(src, 50, 31);
  CHECK(cv::norm(out, cv::Mat(50, 31, CV_8UC3, cv::Scalar(255, 7, 128)), cv::NORM_INF) == 0);
}

TEST_CASE("an exact 2x reduction averages each 2x2 block") {
  cv::Mat src(2, 4, CV_8UC3);
  const uint8_t values[2][4] = {{0, 10, 100, 200}, {20, 30, 50, 51}};
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 4; ++x) src.at<cv::Vec3b>(y, x) = cv::Vec3b::all(values[y][x]);
  }
  const cv::Mat out = Area(src, 1, 2);
  CHECK(out.at<cv::Vec3b>(0, 0)[0] == 15);   // (0 + 10 + 20 + 30) / 4
  CHECK(out.at<cv::Vec3b>(0, 1)[2] == 100);  // (100 + 200 + 50 + 51) / 4 = 100.25
}

TEST_CASE("strided source and destination rows are honoured") {
  const cv::Mat big = Random(40, 60, 5);
  const cv::Mat roi = big(cv::Rect(7, 3, 30, 20));  // rows 180 bytes apart, 90 used
  cv::Mat canvas(12, 20, CV_8UC3, cv::Scalar::all(9));
  cv::Mat inside = canvas(cv::Rect(2, 1, 15, 10));
  AreaResize(roi.data, roi.rows, roi.cols, roi.step, inside.data, 10, 15, inside.step);
  cv::Mat expected;
  cv::resize(roi, expected, cv::Size(15, 10), 0, 0, cv::INTER_AREA);
  CHECK(cv::norm(inside, expected, cv::NORM_INF) <= 1);
  CHECK(canvas.at<cv::Vec3b>(0, 0) == cv::Vec3b::all(9));  // outside the target: untouched
  CHECK(canvas.at<cv::Vec3b>(11, 19) == cv::Vec3b::all(9));
  CHECK(canvas.at<cv::Vec3b>(5, 17) == cv::Vec3b::all(9));
}

cv::Mat ShrunkRowByRow(const cv::Mat& src, int height, int width) {
  cv::Mat dst(height, width, CV_8UC3, cv::Scalar::all(9));
  AreaRowShrinker shrinker(src.rows, src.cols, height, width, dst.data, dst.step);
  for (int y = 0; y < src.rows; ++y) {
    CHECK(!shrinker.done());
    shrinker.AddRow(src.ptr<uint8_t>(y));
  }
  CHECK(shrinker.done());
  return dst;
}

TEST_CASE("shrinking row by row gives AreaResize's pixels exactly") {
  for (const Case& c : kCases) {
    INFO(Describe(c));
    const cv::Mat src = RandomSource(c);
    CHECK(cv::norm(ShrunkRowByRow(src, c.dst_h, c.dst_w), Area(src, c.dst_h, c.dst_w),
                   cv::NORM_INF) == 0);
  }
}

TEST_CASE("a row-by-row shrink holds memory proportional to the width, not the height") {
  // A 30000-row image: the bound is the same as for 300 rows, give or take the row taps.
  const int64_t tall = AreaRowShrinker::ScratchBytes(30000, 2000, 224, 224);
  const int64_t short_one = AreaRowShrinker::ScratchBytes(300, 2000, 224, 224);
  CHECK(tall - short_one < 224 * 4 * 140);
  CHECK(tall < 2000 * 3 * 4 * 3 + (1 << 20));
}

}  // namespace
}  // namespace h5feed::converters::image
