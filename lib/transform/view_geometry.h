#pragma once
// The geometry a loader's view gives one sample (sample_geometry.h): what the gather applies to
// the sample's masks and boxes so that they follow the view's image exactly, for a file of one
// image size and for a file of images at their own size alike. One entry point, so that each
// column asks for its geometry the way the image's own path draws it (design: "geometry once per
// sample"), and the subtle part is written once:
//   - a file of one image size: the view's crop and flip are made as the image is delivered,
//     drawn for the echo copy (DrawTransform(view, epoch, row, copy), as the CPU normalization
//     and the GPU kernel draw them);
//   - a file of images at their own size (OutputViews::gather_crops): the crop is made at the
//     gather for the image's own size (ForImage) and drawn for echo copy 0 (an echo copy reuses
//     the gathered crop), while the flip is the delivered view's, drawn for the copy
//     (own_size_views.h).
// tests/lib/pipeline/geometry_follows_image_test.cpp checks, on both paths, that a mask through
// this geometry lands where the delivered image's pixels do. Thread-safe: a pure function of
// its arguments.

#include <cstdint>

#include "transform/output_views.h"
#include "transform/sample_geometry.h"

namespace h5feed::transform {

// The geometry view `view` (0 <= view < views.count()) of `views` gives the sample at dataset
// row `row` in epoch `epoch`, echo copy `copy`, whose stored image is height x width (used for
// a file of images at their own size; a file of one size has it in its views).
SampleGeometry ViewGeometry(const OutputViews& views, int view, int64_t height, int64_t width,
                            int64_t epoch, int64_t row, int copy);

}  // namespace h5feed::transform
