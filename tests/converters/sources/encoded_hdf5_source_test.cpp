#include "sources/encoded_hdf5_source.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "converters/image/test_images.h"
#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using image::testing::Bytes;
using image::testing::EncodeJpeg;
using image::testing::Pattern;
using image::testing::PatternPng;
using testing::CaughtError;
using testing::ScratchDir;

// The file h5py writes for images kept as encoded files: a 1-D dataset of variable-length
// uint8 (h5py.vlen_dtype(np.uint8)), with labels and class names beside it.
struct EncodedFile {
  std::string images_name = "images";
  std::vector<Bytes> images;
  std::vector<int64_t> labels;  // empty: no labels dataset
  std::vector<std::string> classes;
};

void Write(const std::string& path, const EncodedFile& spec) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(file);
  {
    std::vector<hvl_t> elements;
    for (const Bytes& image : spec.images) {
      elements.push_back({image.size(), const_cast<uint8_t*>(image.data())});
    }
    const hsize_t n[1] = {spec.images.size()};
    hdf5::Dataspace space(H5Screate_simple(1, n, nullptr));
    hdf5::Datatype stored(H5Tvlen_create(H5T_STD_U8LE));
    hdf5::Datatype memory(H5Tvlen_create(H5T_NATIVE_UINT8));
    hdf5::Dataset images(H5Dcreate2(file.get(), spec.images_name.c_str(), stored.get(), space.get(),
                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(H5Dwrite(images.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, elements.data()) >=
            0);
  }
  if (!spec.labels.empty()) {
    const hsize_t n[1] = {spec.labels.size()};
    hdf5::Dataspace space(H5Screate_simple(1, n, nullptr));
    hdf5::Dataset labels(H5Dcreate2(file.get(), "labels", H5T_STD_I64LE, space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(H5Dwrite(labels.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     spec.labels.data()) >= 0);
  }
  if (!spec.classes.empty()) {
    std::vector<const char*> names;
    for (const std::string& name : spec.classes) names.push_back(name.c_str());
    const hsize_t n[1] = {names.size()};
    hdf5::Dataspace space(H5Screate_simple(1, n, nullptr));
    hdf5::Datatype text(H5Tcopy(H5T_C_S1));
    H5Tset_size(text.get(), H5T_VARIABLE);
    H5Tset_cset(text.get(), H5T_CSET_UTF8);
    hdf5::Dataset classes(H5Dcreate2(file.get(), "classes", text.get(), space.get(), H5P_DEFAULT,
                                     H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(H5Dwrite(classes.get(), text.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, names.data()) >= 0);
  }
}

// What the image decoders make of `encoded`: RGB at its full size.
Bytes Decoded(const Bytes& encoded, image::Size* size) {
  const image::DecodePlan plan = image::PlanDecode(encoded, "reference");
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  image::Decode(encoded, plan, "reference", rgb);
  *size = {plan.height, plan.width};
  return rgb;
}

// Sample i as the conversion reads it: its shape, and its pixels in memory of that size.
struct Stored {
  ImageShape shape;
  Bytes pixels;
  SampleInfo info;
};

Stored ReadStored(const SampleSource& source, int64_t i) {
  testing::SampleBuffer buffer;
  Stored stored;
  stored.info = source.Read(i, buffer);
  stored.shape = buffer.shape;
  stored.pixels = std::move(buffer.pixels);
  return stored;
}

Bytes Jpeg(int height, int width, uint32_t seed) {
  return EncodeJpeg(Pattern(height, width, 3, seed), height, width);
}

TEST_CASE("each element is decoded at its own size, labelled and named as the dataset's element") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images = {Jpeg(30, 40, 1), PatternPng(20, 10, 2), Jpeg(8, 8, 3)};
  spec.labels = {2, 0, 1};
  spec.classes = {"cat", "dog", "fish"};
  Write(path, spec);
  MemoryBudget budget(kMinMemoryLimit);
  EncodedHdf5Options options;
  options.memory = &budget;
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, options);
  CHECK(source->own_size());
  CHECK(source->count() == 3);
  CHECK(source->max_side() == kDefaultMaxSide);
  CHECK(source->memory_budget() == &budget);
  CHECK(source->classes() == spec.classes);
  for (int64_t i = 0; i < 3; ++i) {
    image::Size size;
    const Bytes expected = Decoded(spec.images[static_cast<size_t>(i)], &size);
    const Stored stored = ReadStored(*source, i);
    CHECK(stored.shape == ImageShape{size.height, size.width, 3});
    CHECK(stored.pixels == expected);
    CHECK(stored.info.label == spec.labels[static_cast<size_t>(i)]);
    CHECK(stored.info.source == "images[" + std::to_string(i) + "]");
    CHECK(source->name(i) == stored.info.source);
  }
}

TEST_CASE("an image above the cap is stored with its longer side at the cap, aspect kept") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images = {Jpeg(200, 100, 1), PatternPng(60, 120, 2)};
  Write(path, spec);
  EncodedHdf5Options options;
  options.max_side = 50;
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, options);
  CHECK(source->shape() == ImageShape{50, 50, 3});  // the largest any may be
  CHECK(ReadStored(*source, 0).shape == ImageShape{50, 25, 3});
  CHECK(ReadStored(*source, 1).shape == ImageShape{25, 50, 3});
  CHECK(source->classes() == std::vector<std::string>{"0"});  // no labels: every label 0
  CHECK(ReadStored(*source, 1).info.label == 0);
}

TEST_CASE("with no cap, the largest image is found from every element's header") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images = {Jpeg(30, 40, 1), PatternPng(70, 20, 2), Bytes{1, 2, 3}};  // the last: skipped
  Write(path, spec);
  EncodedHdf5Options options;
  options.max_side = 0;
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, options);
  CHECK(source->shape() == ImageShape{70, 20, 3});
  CHECK(source->max_side() == 0);
}

TEST_CASE("a broken element is a corrupt sample named as the dataset's element") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  Bytes truncated = Jpeg(64, 64, 1);
  truncated.resize(truncated.size() / 2);
  spec.images_name = "train_img";
  spec.images = {Jpeg(16, 16, 2), truncated, Bytes{}, Bytes{'n', 'o', 't'}};
  Write(path, spec);
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, {});
  CHECK(ReadStored(*source, 0).info.source == "train_img[0]");
  for (int64_t i : {1, 2, 3}) {
    const Error error = CaughtError([&] { ReadStored(*source, i); });
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).find("train_img[" + std::to_string(i) + "]") !=
          std::string::npos);
  }
}

TEST_CASE("a read that waits for memory does not hold the HDF5 lock while it waits") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images = {PatternPng(100, 100, 1)};
  Write(path, spec);
  MemoryBudget budget(kMinMemoryLimit);
  EncodedHdf5Options options;
  options.memory = &budget;
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, options);
  // All but a few bytes lent elsewhere: the element's bytes cannot be placed without waiting.
  MemoryBudget::Lease held = budget.Acquire(budget.lendable() - 16);
  std::atomic<bool> done{false};
  Stored stored;
  std::thread reader([&] {
    stored = ReadStored(*source, 0);
    done = true;
  });
  while (!budget.has_waiters()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_FALSE(done.load());
  {
    auto lock = std::unique_lock(hdf5::Hdf5Mutex(), std::try_to_lock);
    CHECK(lock.owns_lock());
  }
  held.Release();
  reader.join();
  CHECK(done.load());
  image::Size size;
  CHECK(stored.pixels == Decoded(spec.images[0], &size));
}

TEST_CASE("elements read on many threads at once all arrive, each equal to its decode") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  for (uint32_t k = 0; k < 24; ++k) {
    const int height = 20 + static_cast<int>(k) * 3, width = 60 - static_cast<int>(k);
    spec.images.push_back(k % 2 ? Jpeg(height, width, k) : PatternPng(height, width, k));
  }
  Write(path, spec);
  MemoryBudget budget(kMinMemoryLimit);
  EncodedHdf5Options options;
  options.memory = &budget;
  const std::unique_ptr<SampleSource> source = OpenEncodedHdf5(path, options);
  std::vector<Stored> stored(spec.images.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = t; i < stored.size(); i += 4) {
        stored[i] = ReadStored(*source, static_cast<int64_t>(i));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < stored.size(); ++i) {
    image::Size size;
    CHECK(stored[i].pixels == Decoded(spec.images[i], &size));
  }
}

TEST_CASE("rechunk reads encoded images where the file holds them, and pixels otherwise") {
  ScratchDir dir;
  const std::string encoded = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images_name = "jpegs";
  spec.images = {Jpeg(16, 16, 1)};
  Write(encoded, spec);
  CHECK(HoldsEncodedImages(encoded, ""));  // the only dataset of encoded images
  CHECK(HoldsEncodedImages(encoded, "/jpegs"));
  CHECK(OpenRechunkSource(encoded, {})->own_size());

  const std::string pixels = dir.path() + "/pixels.h5";
  testing::RunPython("import numpy as np, h5py; f = h5py.File(\"" + pixels +
                     "\", \"w\"); f[\"images\"] = np.zeros((2, 4, 4, 3), np.uint8); "
                     "f.create_dataset(\"extra\", (2,), dtype=h5py.vlen_dtype(np.uint8))");
  CHECK_FALSE(HoldsEncodedImages(pixels, ""));
  CHECK(HoldsEncodedImages(pixels, "extra"));
  const std::unique_ptr<SampleSource> source = OpenRechunkSource(pixels, {});
  CHECK_FALSE(source->own_size());
  CHECK(source->shape() == ImageShape{4, 4, 3});

  const Error error = CaughtError([&] { OpenEncodedHdf5(pixels, {}); });
  CHECK(error.code() == ErrorCode::kNotFound);
  CHECK(std::string(error.what()).find("/images uint8 (2, 4, 4, 3)") != std::string::npos);
}

TEST_CASE("labels that do not number the images are refused, as the hdf5 source refuses them") {
  ScratchDir dir;
  const std::string path = dir.path() + "/encoded.h5";
  EncodedFile spec;
  spec.images = {Jpeg(16, 16, 1), Jpeg(16, 16, 2)};
  spec.labels = {0, 1, 1};
  Write(path, spec);
  CHECK(CaughtError([&] { OpenEncodedHdf5(path, {}); }).code() == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace h5feed::converters
