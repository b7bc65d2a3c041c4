#include "sources/own_size_file_source.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "conversion.h"
#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;
using testing::ScratchDir;

// Smooth gradients (so a JPEG of them stays close) of sizes that differ from image to image.
ImageShape ShapeOf(int64_t i) { return {20 + 7 * (i % 4), 16 + 11 * (i % 3), 3}; }

std::vector<uint8_t> PixelsOf(int64_t i) {
  const ImageShape shape = ShapeOf(i);
  std::vector<uint8_t> pixels(static_cast<size_t>(shape.bytes()));
  for (int64_t y = 0; y < shape.height; ++y) {
    for (int64_t x = 0; x < shape.width; ++x) {
      for (int64_t c = 0; c < 3; ++c) {
        pixels[static_cast<size_t>((y * shape.width + x) * 3 + c)] =
            static_cast<uint8_t>(40 + 2 * y + 2 * x + 20 * c + i);
      }
    }
  }
  return pixels;
}

// Images at their own size, or all at one size (own_size false: a version 1 file).
class GradientSource final : public SampleSource {
 public:
  GradientSource(int64_t count, bool own_size) : count_(count), own_size_(own_size) {}
  std::string_view kind() const override { return "test"; }
  int64_t count() const override { return count_; }
  ImageShape shape() const override { return own_size_ ? ImageShape{41, 38, 3} : ShapeOf(0); }
  std::vector<std::string> classes() const override { return {"a", "b", "c"}; }
  bool own_size() const override { return own_size_; }
  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    const int64_t shown = own_size_ ? i : 0;
    const std::vector<uint8_t> pixels = PixelsOf(shown);
    std::span<uint8_t> into = dest.MemoryFor(ShapeOf(shown));
    std::copy(pixels.begin(), pixels.end(), into.begin());
    return {i % 3, std::to_string(i)};
  }

 private:
  int64_t count_;
  bool own_size_;
};

std::string Write(const SampleSource& source, const std::string& path, const char* encoding,
                  int64_t chunk_bytes = 0) {
  ConvertOptions options;
  options.encoding = StoredEncoding::Parse(encoding);
  options.compression = Compression::Parse("zstd:3");
  options.chunk_bytes = chunk_bytes;
  options.shuffle = false;
  options.threads = 2;
  options.strict = true;
  Convert(source, path, options);
  return path;
}

// Image i as the source delivers it, with its label.
struct Delivered {
  ImageShape shape;
  std::vector<uint8_t> pixels;
  int64_t label = 0;
};

Delivered ReadOne(const SampleSource& source, int64_t i) {
  testing::SampleBuffer buffer;
  Delivered d;
  d.label = source.Read(i, buffer).label;
  d.shape = buffer.shape;
  d.pixels = std::move(buffer.pixels);
  return d;
}

TEST_CASE("raw images come back exactly, at their own sizes, with their labels and classes") {
  ScratchDir dir;
  // Chunks of 4 KiB hold a few images each: reads cross from chunk to chunk.
  const std::string path =
      Write(GradientSource(30, true), dir.path() + "/raw.h5", "raw", int64_t{4} << 10);
  const std::unique_ptr<SampleSource> source = OpenOwnSizeFile(path);
  CHECK(source->own_size());
  CHECK(source->count() == 30);
  CHECK(source->classes() == std::vector<std::string>{"a", "b", "c"});
  CHECK(source->prefers_sequential_reads());
  for (int64_t i : {0, 1, 2, 17, 29, 3, 0}) {  // in order, then back and forth
    const Delivered d = ReadOne(*source, i);
    CHECK(d.shape == ShapeOf(i));
    CHECK(d.pixels == PixelsOf(i));
    CHECK(d.label == i % 3);
  }
}

TEST_CASE("JPEG images are decoded whole, at their stored sizes, close to the pixels encoded") {
  ScratchDir dir;
  const std::string path = Write(GradientSource(12, true), dir.path() + "/jpeg.h5", "jpeg:95");
  const std::unique_ptr<SampleSource> source = OpenOwnSizeFile(path);
  for (int64_t i = 0; i < 12; ++i) {
    const Delivered d = ReadOne(*source, i);
    REQUIRE(d.shape == ShapeOf(i));
    const std::vector<uint8_t> original = PixelsOf(i);
    double error = 0;
    for (size_t b = 0; b < original.size(); ++b) error += std::abs(d.pixels[b] - original[b]);
    CHECK(error / static_cast<double>(original.size()) < 4.0);
  }
}

TEST_CASE("a file rewritten through the source holds the same images in another encoding") {
  ScratchDir dir;
  const std::string jpeg = Write(GradientSource(16, true), dir.path() + "/jpeg.h5", "jpeg:90");
  const std::unique_ptr<SampleSource> from_jpeg = OpenOwnSizeFile(jpeg);
  const std::string raw = Write(*from_jpeg, dir.path() + "/raw.h5", "raw");
  const std::unique_ptr<SampleSource> from_raw = OpenOwnSizeFile(raw);
  CHECK(from_raw->count() == 16);
  CHECK(from_raw->max_side() == from_jpeg->max_side());
  for (int64_t i = 0; i < 16; ++i) {
    const Delivered decoded = ReadOne(*from_jpeg, i);
    const Delivered copied = ReadOne(*from_raw, i);
    CHECK(copied.shape == decoded.shape);
    CHECK(copied.pixels == decoded.pixels);  // the JPEG's pixels, stored raw
    CHECK(copied.label == decoded.label);
  }
}

TEST_CASE("a file of one image size is refused, naming what it is") {
  ScratchDir dir;
  const std::string path = Write(GradientSource(8, false), dir.path() + "/fixed.h5", "raw");
  const Error error = CaughtError([&] { OpenOwnSizeFile(path); });
  CHECK(error.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(error.what()).find("one size") != std::string::npos);
}

TEST_CASE("reading outside the file's images is refused") {
  ScratchDir dir;
  const std::string path = Write(GradientSource(4, true), dir.path() + "/raw.h5", "raw");
  const std::unique_ptr<SampleSource> source = OpenOwnSizeFile(path);
  CHECK(CaughtError([&] { ReadOne(*source, 4); }).code() == ErrorCode::kInvalidArgument);
  CHECK(CaughtError([&] { ReadOne(*source, -1); }).code() == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace h5feed::converters
