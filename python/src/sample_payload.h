#pragma once
// One sample of a Python dataset as h5feed.write hands it to the native conversion
// (python_sample_source.h): what a worker process made of dataset[i] (h5feed/_write.py), in the
// compact form it crossed the process boundary in. An encoded image's bytes and a path are
// passed through untouched, for the native decoders; decoded pixels as they were.
//
// A value type, moved from the binding's thread to the conversion's.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace h5feed::python {

struct SamplePayload {
  enum class Image {
    kEncoded,  // `bytes` is an image file's bytes (JPEG, PNG, WebP, ...)
    kPath,     // `bytes` is the path of an image file
    kPixels,   // `bytes` is height x width x channels uint8 pixels, row-major, channels last
  };
  Image image = Image::kEncoded;
  // The image's bytes, which `owner` keeps alive (the Python object they were put from, or a
  // copy): they are not copied on their way to the conversion's threads.
  std::span<const uint8_t> bytes;
  std::shared_ptr<const void> owner;
  int height = 0;  // kPixels only
  int width = 0;
  int channels = 0;
  int64_t label = 0;
  // One value per field of the file, in the fields' order: an array's row_bytes, or a bytes or
  // text value's bytes.
  std::vector<std::vector<uint8_t>> fields;

  // What it holds in memory, which the payload queue bounds.
  int64_t held_bytes() const {
    int64_t held = static_cast<int64_t>(bytes.size());
    for (const std::vector<uint8_t>& value : fields) held += static_cast<int64_t>(value.size());
    return held;
  }
};

}  // namespace h5feed::python
