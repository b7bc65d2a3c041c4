#pragma once
// Files for the index and chunk reader tests: h5feed files written with the project's Writer
// (a known pattern of pixels), foreign files written once per test program by
// make_foreign_files.py under Debian's Python (h5py), and small file surgery (copy, truncate;
// support/flip_byte.h flips a byte) for corruption tests.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "codec/checksum.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "support/caught_error.h"
#include "support/flip_byte.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::testing {

// Byte j of image i: differs between images and positions, never all zero.
inline uint8_t PatternByte(int64_t image, int64_t j) {
  return static_cast<uint8_t>((image * 37 + j * 11 + (j >> 4) + 1) & 0xFF);
}

inline std::vector<uint8_t> PatternPixels(int64_t images, const ImageShape& shape) {
  std::vector<uint8_t> pixels(static_cast<size_t>(images * shape.bytes()));
  for (int64_t i = 0; i < images; ++i) {
    for (int64_t j = 0; j < shape.bytes(); ++j) {
      pixels[static_cast<size_t>(i * shape.bytes() + j)] = PatternByte(i, j);
    }
  }
  return pixels;
}

// Writes an h5feed file of `images` pattern images, `k` per chunk; labels i % 3 and classes
// "a", "b", "c". Returns the pixels written.
inline std::vector<uint8_t> WriteH5feedFile(const std::string& path, Compression compression,
                                            int64_t images, int64_t k, const ImageShape& shape) {
  std::vector<uint8_t> pixels = PatternPixels(images, shape);
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = k;
  options.compression = compression;
  options.overwrite = true;
  Writer writer = Writer::Create(path, options);
  const size_t image_bytes = static_cast<size_t>(shape.bytes());
  for (int64_t first = 0; first < images; first += k) {
    const int64_t count = std::min(k, images - first);
    std::span<const uint8_t> chunk(pixels.data() + first * image_bytes, count * image_bytes);
    writer.Append(writer.Encode(chunk, count));
  }
  DatasetDescription d;
  for (int64_t i = 0; i < images; ++i) {
    d.labels.push_back(i % 3);
    d.sources.push_back("img" + std::to_string(i));
  }
  d.classes = {"a", "b", "c"};
  d.source_kind = "npy";
  writer.Finish(d);
  return pixels;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline std::string CopyTo(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  return to;
}

// Runs `command` with a shell; requires it to succeed.
inline void Run(const std::string& command) {
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
}

// Runs Python `code` with numpy and h5py imported. `code` must not contain single quotes.
inline void RunPythonWithH5py(const std::string& code) {
  RunPython("import numpy as np, h5py\n" + code);
}

// The folder of foreign files make_foreign_files.py writes, made on first use and removed
// when the test program exits.
inline const std::string& ForeignFiles() {
  static TempFolder folder;
  static const bool made = [] {
    // The zstd case needs h5feed's plugin, also when the test runs outside ctest (the plugin
    // is built without sanitizers even in a sanitizer build, so this Python can load it).
    Run(std::string("HDF5_PLUGIN_PATH=") + H5FEED_PLUGIN_DIR + " " + H5FEED_PYTHON + " " +
        H5FEED_MAKE_FOREIGN_FILES + " " + folder.path());
    return true;
  }();
  (void)made;
  return folder.path();
}

inline std::string ForeignFile(const std::string& name) {
  return ForeignFiles() + "/" + name + ".h5";
}

// The error `f` throws; fails the test when it throws none.

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace h5feed::testing
