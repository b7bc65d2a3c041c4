#pragma once
// What a test reads a SampleSource's sample into: memory of its own, sized to each sample it is
// given (sample_destination.h), with the shape the source asked for.

#include <cstdint>
#include <span>
#include <vector>

#include "h5feed/image_shape.h"
#include "sample_destination.h"

namespace h5feed::testing {

class SampleBuffer final : public converters::SampleDestination {
 public:
  ImageShape shape;             // the last sample's
  std::vector<uint8_t> pixels;  // its pixels, H x W x C

 private:
  std::span<uint8_t> Provide(const ImageShape& sample) override {
    shape = sample;
    pixels.resize(static_cast<size_t>(sample.bytes()));
    return pixels;
  }
};

}  // namespace h5feed::testing
