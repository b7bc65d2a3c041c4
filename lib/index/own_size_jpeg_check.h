#pragma once
// Checks the JPEG images of an own-size file (format version 2, layout "flat") the way verify
// does: each decoded whole by lib/decode, so its header must match /image_shapes and libjpeg
// must decode it without an error or a warning. An image of more than 64 MiB of pixels is
// decoded at 1/8 scale instead, so that a worker's memory does not follow the largest image a
// file without a max_side may hold: libjpeg still reads and Huffman-decodes every coefficient,
// only the inverse DCT is coarser.
//
// Holds one JPEG decoder and the pixels of one image. Not thread-safe: one per worker.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "decode/jpeg_region_decoder.h"
#include "index/dataset_index.h"

namespace h5feed::index {

class OwnSizeJpegCheck {
 public:
  // Decodes `jpeg`, the stored bytes of `image`; "" when it decodes, else why not.
  std::string Problem(const StoredImage& image, std::span<const uint8_t> jpeg);

  // The images Problem() decoded (bad ones included).
  int64_t decoded() const { return decoded_; }

 private:
  decode::JpegRegionDecoder decoder_;
  std::vector<uint8_t> pixels_;
  int64_t decoded_ = 0;
};

}  // namespace h5feed::index
