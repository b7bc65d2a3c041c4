#pragma once
// Where SampleSource::Read writes a sample: the source tells it the sample's stored shape, and
// it gives the memory to write the pixels into. A conversion's destination is a place in the
// chunk being assembled (chunk_packer.h): a slot of the one shape of a version 1 file, or room
// sized to the image in a flat file's chunk (or its JPEG encoder's input).
//
// Thread-safety: a destination serves one Read on one thread.

#include <cstdint>
#include <span>

#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "make_error.h"

namespace h5feed::converters {

class SampleDestination {
 public:
  // shape.bytes() bytes for the sample of `shape` being read (H x W x C, interleaved), valid
  // until Read returns. A source asks once per Read, before it writes. Throws Error when the
  // destination cannot hold a sample of that shape (kInternal: a chunk of one shape offered
  // another, which is a bug of the source).
  std::span<uint8_t> MemoryFor(const ImageShape& shape) {
    asked_ = true;
    const std::span<uint8_t> memory = Provide(shape);
    if (static_cast<int64_t>(memory.size()) != shape.bytes()) {
      throw MakeError(ErrorCode::kInternal,
                      "a destination gave {} bytes for a sample of {}x{}x{} ({} bytes)",
                      memory.size(), shape.height, shape.width, shape.channels, shape.bytes());
    }
    return memory;
  }

  // Whether a source has asked it for memory: a Read that returns must have.
  bool asked() const { return asked_; }

 protected:
  ~SampleDestination() = default;

 private:
  // The memory MemoryFor returns, exactly shape.bytes() bytes (MemoryFor checks).
  virtual std::span<uint8_t> Provide(const ImageShape& shape) = 0;

  bool asked_ = false;
};

}  // namespace h5feed::converters
