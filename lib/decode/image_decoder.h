#pragma once
// Decoding one stored image of a file of images at their own size (docs/format.md, version 2),
// whatever its encoding: the unit the reader, verify and the converters call. Each encoding of
// h5feed/image_encoding.h has one ImageDecoder, found by decoder_table.h; nothing that calls it
// knows how the bytes are stored.
//
// A decoder delivers only what a crop needs: the pixels of a box of the image, at the coarsest
// scale that still spans the crop's output size, into the caller's scratch or, where the stored
// bytes are the pixels, in place. The crop then reads the delivered region.
//
// Thread-safety: a decoder is immutable and shared by every thread (its Decode and Check are
// const); what a decode writes lives in the DecodeScratch passed in, one per thread.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decode/pixel_region.h"
#include "h5feed/image_encoding.h"
#include "h5feed/image_shape.h"

namespace h5feed::decode {

// What a crop reads of one image: the pixels of `box`, and the smallest size the box may be
// decoded at without the crop's resize enlarging what it shrinks.
struct CropNeeds {
  PixelBox box;
  int64_t min_height = 0;
  int64_t min_width = 0;

  // Every pixel at full size: a whole decode.
  static CropNeeds Whole(const ImageShape& shape) {
    return {{0, 0, shape.height, shape.width}, shape.height, shape.width};
  }
};

// A decoded region: `pixels` holds region.height * region.width * region.channels bytes,
// row-major, channels last. They point into the stored bytes (an encoding whose stored bytes
// are the pixels: no copy) or into the scratch, and stay valid while both do, until the
// scratch's next decode.
struct DecodedImage {
  const uint8_t* pixels = nullptr;
  DecodedRegion region;
};

struct DecodeOptions {
  // false: every image decoded whole at full scale (what FFCV does), the reference that region
  // decoding is measured and compared against (LoaderOptions::jpeg_region_decode).
  bool region = true;
};

// What verify learns of one image from its decoder.
struct ImageCheck {
  bool decoded = false;  // the check decoded the image (counted in the report), bad or not
  std::string problem;   // "" when the image is good, else why not
};

// State a decoder keeps between images in a thread's scratch (a libjpeg decompressor).
class DecoderState {
 public:
  virtual ~DecoderState() = default;
};

// One thread's memory for decoding, reused from image to image: the pixels a decode writes and
// each encoding's own state, made on first use. Not thread-safe: one per thread.
class DecodeScratch {
 public:
  DecodeScratch();
  DecodeScratch(const DecodeScratch&) = delete;
  DecodeScratch& operator=(const DecodeScratch&) = delete;
  ~DecodeScratch();

  std::vector<uint8_t>& pixels() { return pixels_; }

  // The state of `encoding`'s decoder, a State made here on first use. Only that encoding's
  // decoder asks for it, always with the same State.
  template <typename State>
  State& StateFor(ImageEncoding encoding) {
    std::unique_ptr<DecoderState>& slot = Slot(encoding);
    if (!slot) slot = std::make_unique<State>();
    return static_cast<State&>(*slot);
  }

 private:
  std::unique_ptr<DecoderState>& Slot(ImageEncoding encoding);

  std::vector<uint8_t> pixels_;
  std::vector<std::unique_ptr<DecoderState>> states_;  // by the encoding's value
};

class ImageDecoder {
 public:
  virtual ~ImageDecoder() = default;

  virtual ImageEncoding encoding() const = 0;
  // For messages and reports: "raw pixels", "JPEG".
  virtual std::string_view name() const = 0;
  // The encoding's key in reports, where each encoding's images are counted under it
  // (h5feed/encoding_counts.h): lower case, one word, never changed once released (scripts
  // read it): "raw", "jpeg".
  virtual std::string_view key() const = 0;

  // Whether an image of `shape` may be stored in `bytes` bytes (at least 1): the index's check
  // of the file's table, before anything is read.
  virtual bool StoredSizeFits(const ImageShape& shape, uint64_t bytes) const = 0;

  // Decodes what `needs` asks of `stored`, the stored bytes of an image the file's table says
  // is `shape`: a region covering needs.box at a scale 1/s at which the box still spans
  // needs.min_height x needs.min_width (s is 1 for an encoding without coarser scales; the
  // region may be larger than the box, up to the whole image). Stored bytes that do not hold an
  // image of `shape` throw Error(kCorrupt); a size or header that disagrees with `shape` is
  // refused before anything is allocated for pixels. A box outside the image throws
  // Error(kInvalidArgument).
  virtual DecodedImage Decode(std::span<const uint8_t> stored, const ImageShape& shape,
                              const CropNeeds& needs, DecodeScratch& scratch,
                              DecodeOptions options = {}) const = 0;

  // verify's check of one image whose bytes passed their checksum: whether they hold an image
  // of `shape` that decodes without an error or a warning. Never throws for bad bytes.
  virtual ImageCheck Check(std::span<const uint8_t> stored, const ImageShape& shape,
                           DecodeScratch& scratch) const = 0;

  // What Check does, for verify's list of what it checked ("decoded whole by libjpeg, each
  // header against /image_shapes"); "" when Check adds nothing to the checksum.
  virtual std::string_view checked() const = 0;
};

}  // namespace h5feed::decode
