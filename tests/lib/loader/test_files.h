#pragma once
// Files for the Loader's contract tests: h5feed files written with h5feed::Writer (of one image
// size, or of images at their own size), foreign files written with h5py (NHWC or NCHW, gzip or
// raw), h5py's own read of any of them, and a chunk damaged in place. Byte j of row r of every file
// is FilePixel(r, j) (NHWC order); the label of row r is r % 7. Python runs as H5FEED_PYTHON
// (Debian's /usr/bin/python3, which has h5py and numpy); HDF5_PLUGIN_PATH comes from ctest so h5py
// reads h5feed's zstd chunks.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/image_shape.h"
#include "h5feed/writer.h"
#include "support/temp_folder.h"

#ifndef H5FEED_PYTHON
#define H5FEED_PYTHON "/usr/bin/python3"
#endif

namespace h5feed::testing {

inline uint8_t FilePixel(int64_t row, int64_t byte) {
  return static_cast<uint8_t>((row * 131 + byte * 7 + (row >> 8)) & 0xff);
}

inline std::vector<uint8_t> FileImage(int64_t row, const ImageShape& shape) {
  std::vector<uint8_t> image(static_cast<size_t>(shape.bytes()));
  for (int64_t j = 0; j < shape.bytes(); ++j) image[static_cast<size_t>(j)] = FilePixel(row, j);
  return image;
}

inline void WriteH5feedFile(const std::string& path, int64_t samples, const ImageShape& shape,
                            int64_t chunk, Compression compression) {
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = chunk;
  options.compression = compression;
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  for (int c = 0; c < 7; ++c) description.classes.push_back("class" + std::to_string(c));
  for (int64_t first = 0; first < samples; first += chunk) {
    const int64_t images = std::min(chunk, samples - first);
    std::vector<uint8_t> pixels;
    for (int64_t r = first; r < first + images; ++r) {
      std::vector<uint8_t> image = FileImage(r, shape);
      pixels.insert(pixels.end(), image.begin(), image.end());
      description.labels.push_back(r % 7);
      description.sources.push_back("img" + std::to_string(r) + ".png");
    }
    writer.Append(writer.Encode(pixels, images));
  }
  description.source_kind = "npy";
  writer.Finish(description);
}

// The shape of row r of WriteOwnSizeFile's files: heights 40-91, widths 36-99, landscape and
// portrait.
inline ImageShape OwnSizeShape(int64_t row) { return {40 + row * 7 % 52, 36 + row * 13 % 64, 3}; }

// A file of images at their own size (format version 2, raw pixels, zstd): row r is
// FileImage(r, shape_of(r)), packed whole into chunks of `chunk_bytes`; labels r % 7.
inline void WriteOwnSizeFile(const std::string& path, int64_t samples,
                             int64_t chunk_bytes = int64_t{64} << 10,
                             ImageShape (*shape_of)(int64_t) = OwnSizeShape) {
  WriterOptions options;
  options.compression = Compression::Parse("zstd");
  FlatLayout flat;
  flat.chunk_bytes = chunk_bytes;
  options.flat = flat;
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  for (int c = 0; c < 7; ++c) description.classes.push_back("class" + std::to_string(c));
  std::vector<uint8_t> chunk;
  std::vector<StoredImage> images;
  EncodedChunk encoded;
  const auto append = [&] {
    writer.EncodePackedInto(chunk, images, encoded);
    writer.Append(encoded);
    chunk.clear();
    images.clear();
  };
  for (int64_t r = 0; r < samples; ++r) {
    const ImageShape shape = shape_of(r);
    if (static_cast<int64_t>(chunk.size()) + shape.bytes() > chunk_bytes) append();
    const std::vector<uint8_t> image = FileImage(r, shape);
    chunk.insert(chunk.end(), image.begin(), image.end());
    images.push_back({static_cast<int32_t>(shape.height), static_cast<int32_t>(shape.width), 3,
                      ImageEncoding::kRaw, static_cast<uint64_t>(shape.bytes()), 0});
    description.labels.push_back(r % 7);
    description.sources.push_back("img" + std::to_string(r) + ".png");
  }
  if (!images.empty()) append();
  description.source_kind = "imagefolder";
  writer.Finish(description);
}

// An h5feed file of `samples` rows of `shape` (zstd, chunks of 8) in a folder of its own,
// removed with it.
struct ZstdFile {
  ZstdFile(int64_t samples, const ImageShape& shape) {
    WriteH5feedFile(path, samples, shape, 8, Compression::Parse("zstd"));
  }
  TempFolder folder;
  std::string path = folder / "train.h5";
};

// Runs a Python program (written next to `scratch`); throws when it fails.
inline void RunPython(const std::string& scratch, const std::string& program) {
  const std::string script = scratch + ".py";
  std::ofstream(script) << program;
  // h5py finds the zstd plugin through the test's HDF5_PLUGIN_PATH (the plugin is built without
  // sanitizers even in a sanitizer build, so this Python can load it).
  const std::string command = std::string(H5FEED_PYTHON) + " " + script;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("python failed: " + script);
}

inline std::string PythonPattern(int64_t samples, const ImageShape& shape) {
  return "import numpy as np\n"
         "r = np.arange(" +
         std::to_string(samples) +
         ", dtype=np.int64)[:, None]\n"
         "j = np.arange(" +
         std::to_string(shape.bytes()) +
         ", dtype=np.int64)[None, :]\n"
         "nhwc = ((r * 131 + j * 7 + (r >> 8)) & 0xff).astype(np.uint8).reshape(" +
         std::to_string(samples) + ", " + std::to_string(shape.height) + ", " +
         std::to_string(shape.width) + ", " + std::to_string(shape.channels) +
         ")\n"
         "labels = (np.arange(" +
         std::to_string(samples) + ") % 7).astype(np.int64)\n";
}

// A file as people write them with h5py: /images uint8 in `layout` ("NHWC" or "NCHW"),
// chunks of `chunk` rows, `compression` "gzip" or "none"; /labels int64.
inline void WriteH5pyFile(const std::string& path, int64_t samples, const ImageShape& shape,
                          int64_t chunk, const std::string& layout,
                          const std::string& compression) {
  std::string program = PythonPattern(samples, shape) + "import h5py\n";
  program += layout == "NCHW" ? "data = nhwc.transpose(0, 3, 1, 2).copy()\n" : "data = nhwc\n";
  program += "chunks = (" + std::to_string(chunk) + ",) + data.shape[1:]\n";
  program += "with h5py.File('" + path + "', 'w') as f:\n";
  program += "    f.create_dataset('images', data=data, chunks=chunks" +
             std::string(compression == "gzip" ? ", compression='gzip', compression_opts=4" : "") +
             ")\n";
  program += "    f.create_dataset('labels', data=labels)\n";
  RunPython(path, program);
}

// h5py's read of /images, as NHWC bytes (transposed back when stored NCHW), and /labels.
struct H5pyRead {
  std::vector<uint8_t> images;
  std::vector<int64_t> labels;
};

// Runs `program`, which writes the images it read to PATH.images and their int64 labels to
// PATH.labels, and returns both.
inline H5pyRead RunH5pyRead(const std::string& path, const std::string& program) {
  RunPython(path + ".read", program);
  H5pyRead read;
  std::ifstream images(path + ".images", std::ios::binary);
  read.images.assign(std::istreambuf_iterator<char>(images), {});
  std::ifstream labels(path + ".labels", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(labels)), {});
  read.labels.resize(bytes.size() / sizeof(int64_t));
  std::memcpy(read.labels.data(), bytes.data(), bytes.size());
  return read;
}

inline H5pyRead ReadWithH5py(const std::string& path, const std::string& layout) {
  std::string program = "import h5py, numpy as np\n";
  program += "with h5py.File('" + path + "', 'r') as f:\n";
  program += "    images = f['images'][()]\n";
  program += "    labels = f['labels'][()].astype(np.int64)\n";
  if (layout == "NCHW") program += "images = images.transpose(0, 2, 3, 1)\n";
  program += "np.ascontiguousarray(images).tofile('" + path + ".images')\n";
  program += "labels.tofile('" + path + ".labels')\n";
  return RunH5pyRead(path, program);
}

// h5py's read of a file of images at their own size whose images are raw pixels, as
// docs/format.md says to read one: image n is /images[image_offsets[n] : + image_bytes[n]],
// shaped image_shapes[n]. Every image's H x W x C bytes, one after the other, and /labels.
inline H5pyRead ReadOwnSizeWithH5py(const std::string& path) {
  std::string program = "import h5py, numpy as np\n";
  program += "with h5py.File('" + path + "', 'r') as f:\n";
  program += "    images = [f['images'][int(o):int(o) + int(b)].reshape(s) for o, b, s in\n";
  program +=
      "              zip(f['image_offsets'][()], f['image_bytes'][()], "
      "f['image_shapes'][()])]\n";
  program += "    labels = f['labels'][()].astype(np.int64)\n";
  program += "np.concatenate([i.reshape(-1) for i in images]).tofile('" + path + ".images')\n";
  program += "labels.tofile('" + path + ".labels')\n";
  return RunH5pyRead(path, program);
}

// Overwrites 16 bytes in the middle of chunk `chunk` of /images (located with h5py).
inline void CorruptChunk(const std::string& path, int64_t chunk) {
  std::string program = "import h5py\n";
  program += "with h5py.File('" + path + "', 'r') as f:\n";
  program += "    info = f['images'].id.get_chunk_info(" + std::to_string(chunk) + ")\n";
  program += "with open('" + path + "', 'r+b') as out:\n";
  program += "    out.seek(info.byte_offset + info.size // 2)\n";
  program += "    out.write(bytes(range(100, 116)))\n";
  RunPython(path + ".corrupt", program);
}

// Deletes /row_checksums (h5py): the file then reads like one written before it existed.
inline void RemoveRowChecksums(const std::string& path) {
  std::string program = "import h5py\n";
  program += "with h5py.File('" + path + "', 'r+') as f:\n";
  program += "    del f['row_checksums']\n";
  RunPython(path + ".rows", program);
}

}  // namespace h5feed::testing
