#include "sources/hdf5_source.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/zstd_filter.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::RunPython;
using testing::SampleBuffer;
using testing::ScratchDir;

// Element k (in storage order) of every test image dataset.
uint8_t Stored(int64_t k) { return static_cast<uint8_t>((k * 7) % 251); }

std::vector<uint8_t> StoredValues(int64_t count) {
  std::vector<uint8_t> values(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) values[static_cast<size_t>(k)] = Stored(k);
  return values;
}

// The same values for h5py: a = Stored reshaped to `shape`.
std::string PythonImages(const std::string& shape) {
  return "import numpy as np, h5py; s = " + shape +
         "; a = (np.arange(int(np.prod(s)), dtype=np.int64) * 7 % 251).astype(np.uint8)"
         ".reshape(s)";
}

struct DatasetSpec {
  std::string name;
  std::vector<hsize_t> dims;
  hid_t file_type = H5T_STD_U8LE;
  hid_t memory_type = H5T_NATIVE_UINT8;
  std::vector<hsize_t> chunk;  // empty: contiguous
  int gzip = 0;                // deflate level; 0: none
  int zstd = 0;                // zstd level; 0: none
};

void WriteDataset(hid_t file, const DatasetSpec& spec, const void* data) {
  hdf5::Dataspace space(
      H5Screate_simple(static_cast<int>(spec.dims.size()), spec.dims.data(), nullptr));
  hdf5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (!spec.chunk.empty()) {
    REQUIRE(H5Pset_chunk(dcpl.get(), static_cast<int>(spec.chunk.size()), spec.chunk.data()) >= 0);
  }
  if (spec.gzip > 0) REQUIRE(H5Pset_deflate(dcpl.get(), spec.gzip) >= 0);
  if (spec.zstd > 0) {
    unsigned level = static_cast<unsigned>(spec.zstd);
    REQUIRE(H5Pset_filter(dcpl.get(), 32015, H5Z_FLAG_MANDATORY, 1, &level) >= 0);
  }
  hdf5::Dataset dataset(H5Dcreate2(file, spec.name.c_str(), spec.file_type, space.get(),
                                   H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  REQUIRE(dataset.valid());
  REQUIRE(H5Dwrite(dataset.get(), spec.memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
}

void WriteStringAttribute(hid_t object, const char* name, const std::string& value) {
  hdf5::Datatype type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), value.size());
  hdf5::Dataspace space(H5Screate(H5S_SCALAR));
  hdf5::Attribute attribute(
      H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(H5Awrite(attribute.get(), type.get(), value.data()) >= 0);
}

hdf5::File CreateFile(const std::string& path) {
  hdf5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(file.valid());
  return file;
}

// Requires every row of `source` to be the NHWC view of the Stored values laid out as
// (N, H, W, C) or, when `nchw`, as (N, C, H, W).
void CheckEveryPixel(const SampleSource& source, bool nchw) {
  const ImageShape shape = source.shape();
  const int64_t bytes = shape.bytes();
  SampleBuffer row;
  int64_t wrong = 0;
  for (int64_t n = 0; n < source.count(); ++n) {
    source.Read(n, row);
    CHECK(row.shape == shape);
    for (int64_t h = 0; h < shape.height; ++h) {
      for (int64_t w = 0; w < shape.width; ++w) {
        for (int64_t c = 0; c < shape.channels; ++c) {
          int64_t stored = nchw ? ((c * shape.height) + h) * shape.width + w
                                : ((h * shape.width) + w) * shape.channels + c;
          wrong += row.pixels[static_cast<size_t>((h * shape.width + w) * shape.channels + c)] !=
                   Stored(n * bytes + stored);
        }
      }
    }
  }
  CHECK(wrong == 0);
}

using testing::CodeOf;

TEST_CASE("a gzip NHWC dataset whose chunks split rows reads back every pixel") {
  ScratchDir dir;
  std::string path = dir / "nhwc.h5";
  {
    auto lock = hdf5::Lock();
    hdf5::File file = CreateFile(path);
    std::vector<uint8_t> images = StoredValues(7 * 6 * 10 * 3);
    WriteDataset(file.get(),
                 {"images", {7, 6, 10, 3}, H5T_STD_U8LE, H5T_NATIVE_UINT8, {2, 4, 5, 3}, 6, 0},
                 images.data());
    std::vector<int16_t> labels = {4, 0, 1, 4, 2, 2, 0};
    WriteDataset(file.get(), {"labels", {7}, H5T_STD_I16BE, H5T_NATIVE_INT16, {}, 0, 0},
                 labels.data());
  }
  auto source = OpenHdf5(path, {});
  CHECK(source->kind() == "hdf5");
  CHECK(source->count() == 7);
  CHECK(source->shape() == ImageShape{6, 10, 3});
  CHECK(source->prefers_sequential_reads());
  CHECK(source->classes() == std::vector<std::string>{"0", "1", "2", "3", "4"});
  CheckEveryPixel(*source, false);
  SampleBuffer row;
  SampleInfo info = source->Read(4, row);
  CHECK(info.label == 2);
  CHECK(info.source == "nhwc.h5#4");
  CHECK(source->name(6) == "nhwc.h5#6");
}

TEST_CASE("an h5py NCHW dataset with shuffle and fletcher32 is read as NHWC") {
  ScratchDir dir;
  std::string path = dir / "nchw.h5";
  RunPython(PythonImages("(5, 3, 8, 6)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); f.create_dataset(\"data/x\", data=a, chunks=(2, 3, 8, 6), "
            "compression=\"gzip\", shuffle=True, fletcher32=True); "
            "f[\"data/y\"] = np.array([1, 0, 1, 1, 0], dtype=np.uint8); "
            "f[\"classes\"] = [\"cat\", \"dog\"]");
  Hdf5SourceOptions options;
  options.labels = "/data/y";
  auto source = OpenHdf5(path, options);
  CHECK(source->count() == 5);
  CHECK(source->shape() == ImageShape{8, 6, 3});
  CHECK(source->classes() == std::vector<std::string>{"cat", "dog"});
  CheckEveryPixel(*source, true);
  SampleBuffer row;
  CHECK(source->Read(3, row).label == 1);
  CHECK(source->Read(4, row).label == 0);
}

TEST_CASE("a grayscale (N, H, W) h5py dataset is read as H x W x 1, as the loader reads it") {
  ScratchDir dir;
  std::string path = dir / "gray.h5";
  RunPython(PythonImages("(6, 5, 4)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); f.create_dataset(\"pixels\", data=a, chunks=(4, 5, 4), "
            "compression=\"gzip\"); f[\"other\"] = np.zeros((6, 2), np.float32)");
  auto source = OpenHdf5(path, {});
  CHECK(source->count() == 6);
  CHECK(source->shape() == ImageShape{5, 4, 1});
  CheckEveryPixel(*source, false);
}

TEST_CASE("a layout attribute overrides the guess from the shape") {
  ScratchDir dir;
  std::string path = dir / "declared.h5";
  // (N, 3, 5, 6) looks NCHW; the attribute says it is 3x5 images of 6 channels.
  RunPython(PythonImages("(2, 3, 5, 6)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"images\"] = a; f[\"images\"].attrs[\"layout\"] = \"NHWC\"");
  auto source = OpenHdf5(path, {});
  CHECK(source->shape() == ImageShape{3, 5, 6});
  CHECK_FALSE(source->prefers_sequential_reads());  // contiguous
  CheckEveryPixel(*source, false);

  std::string bad = dir / "bad_layout.h5";
  RunPython(PythonImages("(2, 3, 5, 6)") + "; f = h5py.File(\"" + bad + "\", \"w\"); " +
            "f[\"images\"] = a; f[\"images\"].attrs[\"layout\"] = \"CHW\"");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(bad, {}); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("'CHW'") != std::string::npos);
  CHECK(message.find("bad_layout.h5") != std::string::npos);

  std::string guessed = dir / "guessed.h5";
  RunPython(PythonImages("(2, 3, 5, 6)") + "; h5py.File(\"" + guessed + "\", \"w\")[\"x\"] = a");
  auto nchw = OpenHdf5(guessed, {});
  CHECK(nchw->shape() == ImageShape{5, 6, 3});
  CheckEveryPixel(*nchw, true);
}

TEST_CASE("a zstd-compressed dataset is read through h5feed's filter") {
  hdf5::RegisterZstdFilter();
  ScratchDir dir;
  std::string path = dir / "zstd.h5";
  {
    auto lock = hdf5::Lock();
    hdf5::File file = CreateFile(path);
    std::vector<uint8_t> images = StoredValues(9 * 4 * 4 * 3);
    WriteDataset(file.get(),
                 {"images", {9, 4, 4, 3}, H5T_STD_U8LE, H5T_NATIVE_UINT8, {4, 4, 4, 3}, 0, 3},
                 images.data());
    WriteStringAttribute(file.get(), "layout", "NHWC");
  }
  auto source = OpenHdf5(path, {});
  CHECK(source->count() == 9);
  CheckEveryPixel(*source, false);
}

TEST_CASE("reads from many threads at once return the right rows") {
  ScratchDir dir;
  std::string path = dir / "threads.h5";
  RunPython(PythonImages("(40, 3, 6, 6)") + "; h5py.File(\"" + path +
            "\", \"w\")"
            ".create_dataset(\"images\", data=a, chunks=(4, 3, 6, 6), compression=\"gzip\")");
  auto source = OpenHdf5(path, {});
  REQUIRE(source->shape() == ImageShape{6, 6, 3});
  std::vector<int64_t> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SampleBuffer row;
      for (int64_t n = t; n < 40; n += 4) {
        source->Read(n, row);
        for (int64_t h = 0; h < 6; ++h)
          for (int64_t w = 0; w < 6; ++w)
            for (int64_t c = 0; c < 3; ++c)
              wrong[t] += row.pixels[(h * 6 + w) * 3 + c] != Stored(n * 108 + (c * 6 + h) * 6 + w);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == std::vector<int64_t>(4, 0));
}

TEST_CASE("an h5feed file keeps its sample names and classes") {
  ScratchDir dir;
  std::string path = dir / "h5feed.h5";
  RunPython(PythonImages("(3, 2, 2, 3)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"images\"] = a; f[\"labels\"] = np.array([1, 1, 0], dtype=np.int64); "
            "f[\"classes\"] = [\"bird\", \"fish\"]; "
            "f[\"sources\"] = [\"fish/1.jpg\", \"fish/2.png\", \"bird/3.jpg\"]; "
            "f.attrs[\"layout\"] = \"NHWC\"");
  auto source = OpenHdf5(path, {});
  SampleBuffer row;
  SampleInfo info = source->Read(2, row);
  CHECK(info.source == "bird/3.jpg");
  CHECK(info.label == 0);
  CHECK(source->name(1) == "fish/2.png");
  CHECK(source->classes() == std::vector<std::string>{"bird", "fish"});
}

TEST_CASE("a file the Writer wrote (zstd, zero-padded last chunk) reads back every pixel") {
  ScratchDir dir;
  std::string path = dir / "written.h5";
  WriterOptions options;
  options.image_shape = {5, 4, 3};
  options.chunk_images = 4;
  options.compression = Compression::Parse("zstd:3");
  Writer writer = Writer::Create(path, options);
  std::vector<uint8_t> pixels = StoredValues(10 * 60);
  for (int64_t first = 0; first < 10; first += 4) {
    int64_t images = std::min<int64_t>(4, 10 - first);
    writer.Append(writer.Encode(std::span(pixels).subspan(first * 60, images * 60), images));
  }
  DatasetDescription description;
  description.labels = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0};
  // (Built with append: GCC 12's -Wrestrict misfires on "literal" + std::to_string(i), PR 105329.)
  for (int i = 0; i < 10; ++i)
    description.sources.push_back(std::string("s").append(std::to_string(i)) + ".png");
  description.classes = {"a", "b", "c"};
  description.source_kind = "npy";
  writer.Finish(description);

  auto source = OpenHdf5(path, {});
  CHECK(source->count() == 10);
  CHECK(source->shape() == ImageShape{5, 4, 3});
  CHECK(source->classes() == std::vector<std::string>{"a", "b", "c"});
  CheckEveryPixel(*source, false);
  SampleBuffer row;
  SampleInfo info = source->Read(9, row);
  CHECK(info.source == "s9.png");
  CHECK(info.label == 0);
}

TEST_CASE("an image of an h5feed file that fails its checksum is corrupt; the others read") {
  ScratchDir dir;
  std::string path = dir / "damaged.h5";
  WriterOptions options;
  options.image_shape = {5, 4, 3};
  options.chunk_images = 4;
  options.compression = Compression::Parse("none");
  Writer writer = Writer::Create(path, options);
  std::vector<uint8_t> pixels = StoredValues(8 * 60);
  writer.Append(writer.Encode(std::span(pixels).first(4 * 60), 4));
  writer.Append(writer.Encode(std::span(pixels).subspan(4 * 60), 4));
  DatasetDescription description;
  description.labels = {0, 1, 0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 8; ++i)
    description.sources.push_back(std::string("s").append(std::to_string(i)));
  description.classes = {"a", "b"};
  description.source_kind = "npy";
  writer.Finish(description);
  // One pixel of image 6 changed on disk, as a flipped bit would; its checksum is left.
  RunPython("import h5py; f = h5py.File(\"" + path +
            "\", \"r+\"); f[\"images\"][6, 2, 1, 0] ^= 1; f.close()");

  auto source = OpenHdf5(path, {});
  SampleBuffer row;
  std::string message;
  // Copied into a new file, its pixels would get a fresh checksum that vouches for them.
  CHECK(CodeOf([&] { source->Read(6, row); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("row 6 of /images in " + path + " fails its checksum") != std::string::npos);
  for (int64_t i : {0, 5, 7}) {
    source->Read(i, row);
    CHECK(std::equal(row.pixels.begin(), row.pixels.end(), pixels.begin() + i * 60));
  }
}

// A pass-through HDF5 filter that counts how often a chunk is decoded (id in the range HDF5
// reserves for testing, 256-511).
constexpr H5Z_filter_t kCountingFilter = 300;
int counting_filter_decodes = 0;

size_t CountingFilter(unsigned flags, size_t, const unsigned*, size_t nbytes, size_t*, void**) {
  if (flags & H5Z_FLAG_REVERSE) ++counting_filter_decodes;
  return nbytes;
}

TEST_CASE("rows read in order decode each chunk once, even chunks above HDF5's 1 MiB cache") {
  static const H5Z_class2_t filter_class = {
      H5Z_CLASS_T_VERS, kCountingFilter, 1, 1, "counting", nullptr, nullptr, CountingFilter};
  ScratchDir dir;
  std::string path = dir / "big_chunks.h5";
  {
    auto lock = hdf5::Lock();
    REQUIRE(H5Zregister(&filter_class) >= 0);
    hdf5::File file = CreateFile(path);
    // Chunks of 8 images of 256x256x3: 1.5 MiB each, so the default cache could hold none.
    hsize_t dims[4] = {12, 256, 256, 3};
    hsize_t chunk[4] = {8, 256, 256, 3};
    hdf5::Dataspace space(H5Screate_simple(4, dims, nullptr));
    hdf5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
    REQUIRE(H5Pset_chunk(dcpl.get(), 4, chunk) >= 0);
    REQUIRE(H5Pset_filter(dcpl.get(), kCountingFilter, H5Z_FLAG_MANDATORY, 0, nullptr) >= 0);
    hdf5::Dataset dataset(H5Dcreate2(file.get(), "images", H5T_STD_U8LE, space.get(), H5P_DEFAULT,
                                     dcpl.get(), H5P_DEFAULT));
    std::vector<uint8_t> images = StoredValues(12 * 256 * 256 * 3);
    REQUIRE(H5Dwrite(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     images.data()) >= 0);
  }
  auto source = OpenHdf5(path, {});
  counting_filter_decodes = 0;
  CheckEveryPixel(*source, false);
  CHECK(counting_filter_decodes == 2);
}

TEST_CASE("a file that is not HDF5 says so") {
  ScratchDir dir;
  testing::WriteText(dir / "fake.h5", "this is not an HDF5 file at all");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(dir / "fake.h5", {}); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.starts_with((dir / "fake.h5") + " is not an HDF5 file"));
  CHECK(CodeOf([&] { OpenHdf5(dir / "absent.h5", {}); }) == ErrorCode::kNotFound);
}

TEST_CASE("images that are not uint8 are refused, and the error lists the datasets found") {
  ScratchDir dir;
  std::string path = dir / "floats.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"images\"] = np.zeros((4, 8, 8, 3), dtype=np.float32); "
            "f[\"labels\"] = np.zeros(4, dtype=np.int64); "
            "f[\"g/flat\"] = np.zeros((4, 192), dtype=np.uint8)");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(path, {}); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("must be uint8") != std::string::npos);
  CHECK(message.find("images float32 (4, 8, 8, 3)") != std::string::npos);
  CHECK(message.find("labels int64 (4,)") != std::string::npos);
  CHECK(message.find("g/flat uint8 (4, 192)") != std::string::npos);

  Hdf5SourceOptions options;
  options.images = "images";
  CHECK(CodeOf([&] { OpenHdf5(path, options); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("float32") != std::string::npos);
  options.images = "nothing";
  CHECK(CodeOf([&] { OpenHdf5(path, options); }) == ErrorCode::kNotFound);
}

TEST_CASE("several candidate datasets need --images") {
  ScratchDir dir;
  std::string path = dir / "two.h5";
  RunPython(PythonImages("(2, 4, 4, 3)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"train\"] = a; f[\"test\"] = a[:1]");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(path, {}); }, &message) == ErrorCode::kInvalidArgument);
  CHECK(message.find("--images") != std::string::npos);
  Hdf5SourceOptions options;
  options.images = "/test";
  CHECK(OpenHdf5(path, options)->count() == 1);
}

TEST_CASE("labels of the wrong length, type or sign are refused") {
  ScratchDir dir;
  std::string path = dir / "labels.h5";
  RunPython(PythonImages("(3, 2, 2, 3)") + "; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"images\"] = a; f[\"labels\"] = np.array([0, 1]); "
            "f[\"floats\"] = np.array([0.0, 1.0, 2.0]); f[\"negative\"] = np.array([0, -3, 1])");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(path, {}); }, &message) == ErrorCode::kInvalidArgument);
  CHECK(message.find("2 labels for 3 images") != std::string::npos);
  Hdf5SourceOptions options;
  options.labels = "floats";
  CHECK(CodeOf([&] { OpenHdf5(path, options); }) == ErrorCode::kUnsupported);
  options.labels = "negative";
  CHECK(CodeOf([&] { OpenHdf5(path, options); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("-3") != std::string::npos);
  options.labels = "absent";
  CHECK(CodeOf([&] { OpenHdf5(path, options); }) == ErrorCode::kNotFound);
}

TEST_CASE("a filter this HDF5 cannot decode is reported at open") {
  ScratchDir dir;
  std::string path = dir / "lzf.h5";
  RunPython(PythonImages("(4, 4, 4, 3)") + "; h5py.File(\"" + path +
            "\", \"w\")"
            ".create_dataset(\"images\", data=a, compression=\"lzf\")");
  std::string message;
  CHECK(CodeOf([&] { OpenHdf5(path, {}); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("lzf") != std::string::npos);
  CHECK(message.find("HDF5_PLUGIN_PATH") != std::string::npos);
}

TEST_CASE("a truncated HDF5 file is reported as damaged") {
  ScratchDir dir;
  std::string path = dir / "cut.h5";
  RunPython(PythonImages("(64, 16, 16, 3)") + "; h5py.File(\"" + path +
            "\", \"w\")"
            "[\"images\"] = a");
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  CHECK(CodeOf([&] { OpenHdf5(path, {}); }) == ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace h5feed::converters
