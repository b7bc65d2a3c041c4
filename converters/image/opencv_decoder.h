#pragma once
// BMP, PNM (PBM, PGM, PPM, binary and ASCII) and TIFF decoding through OpenCV's imgcodecs,
// converted from OpenCV's BGR to RGB; gray and palette images become RGB by replication and
// lookup, alpha is dropped, EXIF/TIFF orientation is ignored (as PIL ignores it), and images
// of more than 8 bits are reduced as OpenCV does (the high byte), which can differ from PIL.
//
// The dimensions come from a small header reader of our own: OpenCV cannot report them
// without decoding, and checking them before OpenCV allocates keeps absurd sizes out.
//
// OpenCV's imgcodecs lives in a module of its own, h5feed-opencv-codecs.so, loaded at the first
// DecodeOpenCv (opencv_codecs_module.h says why). When it cannot be loaded, DecodeOpenCv throws
// Error(kUnsupported) saying where it was looked for: not kCorrupt, the file is not at fault.
//
// Thread-safety: stateless after the module is loaded (once, thread-safely); cv::imdecode is
// thread-safe.

#include <cstdint>
#include <span>
#include <string_view>

#include "image/image_decoder.h"

namespace h5feed::converters::image {

// Whether the bytes start like a BMP, PNM or TIFF file.
bool IsOpenCvFormat(std::span<const uint8_t> encoded);

DecodePlan PlanOpenCv(std::span<const uint8_t> encoded, std::string_view name);

void DecodeOpenCv(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                  std::span<uint8_t> rgb);

}  // namespace h5feed::converters::image
