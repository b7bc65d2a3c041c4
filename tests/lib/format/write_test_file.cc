// write_test_file OUT.h5 [--compression none|zstd[:L]|gzip[:L]] [--images N] [--height H]
//                 [--width W] [--chunk K] [--force]
//
// Writes an h5feed file of a deterministic pattern with the library's Writer, for tests in
// other languages (test_h5py_reads_writer_output.py) to check what other HDF5 readers see.
// Pixel (i, y, x, c) = (31 i + 7 y + 3 x + 101 c) mod 256; label i = i mod 3; classes "cat",
// "dog", "émeu"; source i = "img<i>.png"; one skipped source "broken.jpg" ("truncated file");
// shuffle seed 42. Exit status: 0 written, 1 h5feed error (message on stderr, prefixed with
// the error code's name), 2 bad usage.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/writer.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr, "write_test_file: %s\n", message);
  return 2;
}

int Run(int argc, char** argv) {
  if (argc < 2) return Usage("usage: write_test_file OUT.h5 [--compression C] [--images N] ...");
  std::string out = argv[1];
  h5feed::WriterOptions options;
  options.image_shape = {4, 5, 3};
  options.chunk_images = 4;
  int64_t images = 10;
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--force") {
      options.overwrite = true;
      continue;
    }
    if (i + 1 >= argc) return Usage(("missing value after " + flag).c_str());
    std::string value = argv[++i];
    if (flag == "--compression") {
      options.compression = h5feed::Compression::Parse(value);
    } else if (flag == "--images") {
      images = std::stoll(value);
    } else if (flag == "--height") {
      options.image_shape.height = std::stoll(value);
    } else if (flag == "--width") {
      options.image_shape.width = std::stoll(value);
    } else if (flag == "--chunk") {
      options.chunk_images = std::stoll(value);
    } else {
      return Usage(("unknown option " + flag).c_str());
    }
  }

  h5feed::Writer writer = h5feed::Writer::Create(out, options);
  const h5feed::ImageShape& shape = options.image_shape;
  const int64_t k = writer.chunk_images();
  h5feed::DatasetDescription description;
  std::vector<uint8_t> pixels;
  for (int64_t first = 0; first < images; first += k) {
    const int64_t count = std::min(k, images - first);
    pixels.clear();
    for (int64_t i = first; i < first + count; ++i) {
      for (int64_t y = 0; y < shape.height; ++y)
        for (int64_t x = 0; x < shape.width; ++x)
          for (int64_t c = 0; c < shape.channels; ++c)
            pixels.push_back(static_cast<uint8_t>((31 * i + 7 * y + 3 * x + 101 * c) % 256));
      description.labels.push_back(i % 3);
      description.sources.push_back("img" + std::to_string(i) + ".png");
    }
    writer.Append(writer.Encode(pixels, count));
  }
  description.classes = {"cat", "dog", "émeu"};
  description.skipped = {{"broken.jpg", "truncated file"}};
  description.source_kind = "npy";
  description.shuffle_seed = 42;
  writer.Finish(description);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const h5feed::Error& error) {
    std::fprintf(stderr, "write_test_file: %s: %s\n", std::string(ToString(error.code())).c_str(),
                 error.what());
    return 1;
  }
}
