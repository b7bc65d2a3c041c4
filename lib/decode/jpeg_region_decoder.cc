#include "decode/jpeg_region_decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "decode/jpeg_decompressor.h"
#include "decode/jpeg_restart_cut.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::decode {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The coarsest s in {8, 4, 2} at which the box keeps min_height x min_width, else 1.
int ChooseScale(const PixelBox& box, int64_t min_height, int64_t min_width, bool allowed) {
  if (!allowed) return 1;
  for (int s : {8, 4, 2}) {
    if (box.height >= s * min_height && box.width >= s * min_width) return s;
  }
  return 1;
}

// The columns and rows libjpeg is asked for, in the scaled image; plain values only, so the
// guarded functions below hold nothing with a destructor.
struct Window {
  JDIMENSION left = 0, right = 0;  // the region's columns [left, right)
  JDIMENSION top = 0;              // the region's first row
  JDIMENSION crop_left = 0;        // first column libjpeg decodes (an iMCU boundary)
  JDIMENSION crop_width = 0;       // columns libjpeg decodes from there
};

// Starts decompression with PIL's settings at 1/scale, narrows it to the iMCU columns around
// [left, right) when `crop`, and skips the rows above `top`.
//
// The columns are widened by one iMCU on each side before libjpeg aligns them: fancy
// upsampling treats the first and last column it decodes as the image's edges, where it has no
// neighbouring chroma sample (libjpeg.txt, "Partial image decompression"), so those columns
// differ from a whole-image decode; one more iMCU on each side keeps them out of the region.
// Rows need no margin: jpeg_skip_scanlines decodes the context rows fancy upsampling needs.
bool GuardedStart(jpeg_decompress_struct* cinfo, JpegErrorTrap* trap, int scale, int channels,
                  bool crop, Window* window) {
  if (setjmp(trap->jump) != 0) return false;
  cinfo->scale_num = 1;
  cinfo->scale_denom = static_cast<unsigned int>(scale);
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->do_fancy_upsampling = TRUE;
  cinfo->out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(cinfo);
  window->crop_left = 0;
  window->crop_width = cinfo->output_width;
  if (crop) {
    const JDIMENSION imcu =
        static_cast<JDIMENSION>(cinfo->max_h_samp_factor * cinfo->min_DCT_scaled_size);
    JDIMENSION left = window->left > imcu ? window->left - imcu : 0;
    JDIMENSION right = std::min(cinfo->output_width, window->right + imcu);
    if (left > 0 || right < cinfo->output_width) {
      JDIMENSION width = right - left;
      jpeg_crop_scanline(cinfo, &left, &width);
      window->crop_left = left;
      window->crop_width = width;
    }
    if (window->top > 0) jpeg_skip_scanlines(cinfo, window->top);
  }
  return true;
}

// Reads `rows` rows into dest (rows of `row_bytes`), each straight into place when the decoded
// span is the region (row == nullptr), else through `row` from byte `offset`. Finishes the
// image (reading to its end marker) when the last row was read.
bool GuardedReadRows(jpeg_decompress_struct* cinfo, JpegErrorTrap* trap, JDIMENSION rows,
                     size_t row_bytes, uint8_t* dest, uint8_t* row, size_t offset) {
  if (setjmp(trap->jump) != 0) return false;
  for (JDIMENSION i = 0; i < rows; ++i) {
    uint8_t* out = dest + i * row_bytes;
    JSAMPROW target = row != nullptr ? row : out;
    jpeg_read_scanlines(cinfo, &target, 1);
    if (row != nullptr) std::memcpy(out, row + offset, row_bytes);
  }
  if (cinfo->output_scanline == cinfo->output_height) jpeg_finish_decompress(cinfo);
  return true;
}

std::string Describe(int64_t height, int64_t width, int channels) {
  return std::to_string(height) + "x" + std::to_string(width) + "x" + std::to_string(channels);
}

}  // namespace

JpegRegionDecoder::JpegRegionDecoder() : decompressor_(std::make_unique<JpegDecompressor>()) {}
JpegRegionDecoder::JpegRegionDecoder(JpegRegionDecoder&&) noexcept = default;
JpegRegionDecoder& JpegRegionDecoder::operator=(JpegRegionDecoder&&) noexcept = default;
JpegRegionDecoder::~JpegRegionDecoder() = default;

DecodedRegion JpegRegionDecoder::Decode(std::span<const uint8_t> jpeg, const JpegInfo& expected,
                                        const PixelBox& box, int64_t min_height, int64_t min_width,
                                        std::vector<uint8_t>& dest, RegionOptions options) {
  if (box.top < 0 || box.left < 0 || box.height <= 0 || box.width <= 0 ||
      box.top + box.height > expected.height || box.left + box.width > expected.width ||
      min_height < 0 || min_width < 0) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "JPEG region: box {}x{} at ({}, {}) is not inside a {} image, or a minimum size is "
        "negative",
        box.height, box.width, box.top, box.left,
        Describe(expected.height, expected.width, expected.channels));
  }
  const int scale = ChooseScale(box, min_height, min_width, options.scale);
  // The rows and columns outside the part around the box are not entropy-decoded at all when
  // the JPEG can be cut there. At 1/s the region holds the scaled pixels the box touches: the
  // pixels from s x floor(start / s) to s x ceil(end / s).
  PixelBox part{0, 0, expected.height, expected.width};
  if (options.crop) {
    const int64_t top = box.top / scale * scale;
    const int64_t left = box.left / scale * scale;
    const PixelBox aligned{
        top, left, std::min(expected.height, CeilDiv(box.top + box.height, scale) * scale) - top,
        std::min(expected.width, CeilDiv(box.left + box.width, scale) * scale) - left};
    if (const auto cut = CutAroundBox(jpeg, expected.height, expected.width, aligned, cut_)) {
      part = *cut;
      jpeg = cut_;
    }
  }
  const PixelBox box_in_part{box.top - part.top, box.left - part.left, box.height, box.width};
  return DecodeFrom(jpeg, JpegInfo{part.height, part.width, expected.channels}, box_in_part, part,
                    scale, dest, options);
}

DecodedRegion JpegRegionDecoder::DecodeFrom(std::span<const uint8_t> jpeg, const JpegInfo& expected,
                                            const PixelBox& box, const PixelBox& part, int scale,
                                            std::vector<uint8_t>& dest, RegionOptions options) {
  JpegDecompressor& decompressor = *decompressor_;
  const JpegInfo header = decompressor.ReadHeader(jpeg);
  if (header.height != expected.height || header.width != expected.width ||
      header.channels != expected.channels) {
    decompressor.Fail("the header says " + Describe(header.height, header.width, header.channels) +
                      ", the file's table " +
                      Describe(expected.height, expected.width, expected.channels));
  }
  try {
    Window window;
    window.left = static_cast<JDIMENSION>(box.left / scale);
    window.right = static_cast<JDIMENSION>(CeilDiv(box.left + box.width, scale));
    window.top = static_cast<JDIMENSION>(box.top / scale);
    const auto bottom = static_cast<JDIMENSION>(CeilDiv(box.top + box.height, scale));
    if (!GuardedStart(decompressor.cinfo(), decompressor.trap(), scale, header.channels,
                      options.crop, &window)) {
      decompressor.FailWithTrappedMessage();
    }
    if (!options.crop) {
      window.left = 0;
      window.right = decompressor.cinfo()->output_width;
      window.top = 0;
    }
    const JDIMENSION rows =
        options.crop ? bottom - window.top : decompressor.cinfo()->output_height;
    const size_t row_bytes = size_t{window.right - window.left} * header.channels;
    // Grown, never shrunk: a vector zero-fills what it grows by, and regions vary in size.
    if (dest.size() < row_bytes * rows) dest.resize(row_bytes * rows);
    uint8_t* row = nullptr;
    if (window.crop_left != window.left || window.crop_width != window.right - window.left) {
      row_.resize(size_t{window.crop_width} * header.channels);
      row = row_.data();
    }
    const size_t offset = size_t{window.left - window.crop_left} * header.channels;
    if (!GuardedReadRows(decompressor.cinfo(), decompressor.trap(), rows, row_bytes, dest.data(),
                         row, offset)) {
      decompressor.FailWithTrappedMessage();
    }
    decompressor.Abort();
    return DecodedRegion{.scale = scale,
                         .top = window.top + part.top / scale,
                         .left = window.left + part.left / scale,
                         .height = rows,
                         .width = window.right - window.left,
                         .channels = header.channels};
  } catch (...) {
    decompressor.Abort();
    throw;
  }
}

}  // namespace h5feed::decode
