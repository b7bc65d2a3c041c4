#pragma once
// The value of `--size` of the conversions that fit images to one size (`convert imagefolder`,
// `convert segmentation`, `convert coco`).

#include <string>

#include "image/resize.h"

namespace h5feed::cli {

// "224x224" (height x width, like torchvision's Resize) or "224" (square). Throws
// Error(kInvalidArgument) naming --size for anything else, or a side outside 1..65535.
converters::image::Size ParseSize(const std::string& text);

}  // namespace h5feed::cli
