#pragma once
// The C interface of h5feed-opencv-codecs.so, the module that holds OpenCV's imgcodecs for
// BMP, PNM and TIFF (opencv_decoder.h). imgcodecs brings about 85 shared libraries with it
// (GDAL, GDCM, OpenEXR, ...): linked into the h5feed command or the Python module, they cost
// every process 0.05-0.15 s and 35 MB at start-up, whether or not it ever meets such a file.
// The module is loaded (dlopen) at the first BMP, PNM or TIFF decoded, and never otherwise.
//
// A C function, so that the module and its loader share no C++ ABI beyond plain types.

#include <cstddef>
#include <cstdint>

namespace h5feed::converters::image {

// What the module's function returns.
enum OpenCvDecodeStatus : int {
  kOpenCvDecoded = 0,     // `rgb` holds height x width x 3 bytes
  kOpenCvUnreadable = 1,  // OpenCV cannot decode the bytes (`message` says why)
  kOpenCvWrongSize = 2,   // it decoded another size than the header's (`message` says which)
  kOpenCvInternal = 3,    // OpenCV wrote elsewhere than `rgb`: a bug
};

// Decodes `encoded` with cv::imdecode (colour, EXIF orientation ignored) and converts OpenCV's
// BGR to RGB into `rgb`. `message` receives a NUL-terminated reason when the result is not
// kOpenCvDecoded (truncated to message_size). Thread-safe.
using OpenCvDecodeFunction = int (*)(const uint8_t* encoded, size_t encoded_size, int height,
                                     int width, uint8_t* rgb, char* message, size_t message_size);

// The name the module exports its function under.
inline constexpr const char* kOpenCvDecodeSymbol = "h5feed_opencv_decode_rgb";

// $H5FEED_OPENCV_CODECS, when set, names the module to load (only that is tried).
inline constexpr const char* kOpenCvCodecsVariable = "H5FEED_OPENCV_CODECS";

}  // namespace h5feed::converters::image
