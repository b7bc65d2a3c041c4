// The Loader's public contract: what a batch holds. Pixels and labels equal what was written
// and what h5py reads, for h5feed files (zstd, gzip, none) and h5py-written NHWC and NCHW
// files; normalized batches equal the textbook formula; echoed batches repeat their rows.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::TempFolder;

constexpr ImageShape kShape{9, 7, 3};

// Reads one epoch and checks every row against h5py's read of the file; returns the rows.
std::vector<int64_t> CheckEpochAgainst(Loader& loader, const testing::H5pyRead& truth) {
  const auto bytes = static_cast<size_t>(loader.dataset().image_shape.bytes());
  std::vector<int64_t> rows;
  loader.SetEpoch(1);
  while (auto batch = loader.Next()) {
    REQUIRE(batch->images().size() == static_cast<size_t>(batch->size()) * bytes);
    for (size_t i = 0; i < static_cast<size_t>(batch->size()); ++i) {
      const auto row = static_cast<size_t>(batch->indices()[i]);
      CHECK(batch->labels()[i] == truth.labels[row]);
      CHECK(std::equal(batch->images().begin() + static_cast<long>(i * bytes),
                       batch->images().begin() + static_cast<long>((i + 1) * bytes),
                       truth.images.begin() + static_cast<long>(row * bytes)));
      rows.push_back(batch->indices()[i]);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<int64_t> AllRows(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
  return rows;
}

TEST_CASE("pixels and labels of h5feed files equal the Writer's input and h5py's read") {
  for (std::string compression : {"zstd", "gzip", "none"}) {
    CAPTURE(compression);
    TempFolder folder;
    const std::string path = folder / "train.h5";
    testing::WriteH5feedFile(path, 150, kShape, 16, Compression::Parse(compression));
    const testing::H5pyRead truth = testing::ReadWithH5py(path, "NHWC");
    REQUIRE(truth.images.size() == 150 * static_cast<size_t>(kShape.bytes()));
    for (int64_t r = 0; r < 150; ++r) {  // h5py's read is the Writer's input
      CHECK(std::equal(truth.images.begin() + r * kShape.bytes(),
                       truth.images.begin() + (r + 1) * kShape.bytes(),
                       testing::FileImage(r, kShape).begin()));
      CHECK(truth.labels[static_cast<size_t>(r)] == r % 7);
    }
    // Mapped (uncompressed chunks used in place, compressed ones decoded from the page cache)
    // and read with pread: the same pixels. A cache of 3 chunks makes mapped chunks come and go.
    for (bool map_file : {true, false}) {
      CAPTURE(map_file);
      LoaderOptions options;
      options.batch_size = 32;
      options.sampler = SamplerOptions::Parse("random");
      options.threads = 2;
      options.map_file = map_file;
      options.cache_bytes = 3 * 16 * kShape.bytes();
      Loader loader = Loader::Open(path, options);
      CHECK(loader.dataset().samples == 150);
      CHECK(loader.dataset().image_shape == kShape);
      CHECK(loader.dataset().chunk_samples == 16);
      CHECK(loader.dataset().chunks == 10);
      CHECK(loader.dataset().classes.size() == 7);
      CHECK(CheckEpochAgainst(loader, truth) == AllRows(150));
      CHECK(loader.stats().chunk_reads > 10);  // chunks were evicted and read again
    }
  }
}

TEST_CASE("pixels and labels of h5py-written NHWC and NCHW files equal h5py's read") {
  for (std::string layout : {"NHWC", "NCHW"}) {
    for (std::string compression : {"gzip", "none"}) {
      CAPTURE(layout);
      CAPTURE(compression);
      TempFolder folder;
      const std::string path = folder / "foreign.h5";
      testing::WriteH5pyFile(path, 130, kShape, 12, layout, compression);
      const testing::H5pyRead truth = testing::ReadWithH5py(path, layout);
      LoaderOptions options;
      options.batch_size = 20;
      options.sampler = SamplerOptions::Parse("chunks:3");
      options.threads = 2;
      Loader loader = Loader::Open(path, options);
      CHECK(loader.dataset().image_shape == kShape);  // H x W x C whatever the stored layout
      CHECK(CheckEpochAgainst(loader, truth) == AllRows(130));
    }
  }
}

ImageShape OneShape(int64_t /*row*/) { return {12, 10, 3}; }

TEST_CASE("a file of images at their own size that all have one size reads as that size") {
  // h5feed.write without size= writes such a file from CIFAR or FakeData: read without a crop,
  // each image is decoded whole into the batch, as a file written at that size would hold it.
  TempFolder folder;
  const std::string path = folder / "one_size.h5";
  testing::WriteOwnSizeFile(path, 90, 2048, OneShape);
  const testing::H5pyRead truth = testing::ReadOwnSizeWithH5py(path);
  REQUIRE(truth.images.size() == 90 * static_cast<size_t>(OneShape(0).bytes()));
  LoaderOptions options;
  options.batch_size = 16;
  options.sampler = SamplerOptions::Parse("chunks:2");
  options.threads = 2;
  Loader loader = Loader::Open(path, options);
  CHECK(loader.dataset().image_shape == OneShape(0));
  CHECK(loader.dataset().chunks > 4);
  CHECK(CheckEpochAgainst(loader, truth) == AllRows(90));

  // Normalized, flipped and center-cropped as a file of one image size is.
  options.normalize = true;
  options.output.layout = Layout::kNHWC;
  options.output.augment.center_crop_height = 8;
  options.output.augment.center_crop_width = 6;
  Loader cropped = Loader::Open(path, options);
  cropped.SetEpoch(0);
  const auto batch = cropped.Next();
  REQUIRE(batch);
  REQUIRE(batch->normalized());
  REQUIRE(batch->normalized_images().size() == static_cast<size_t>(16 * 8 * 6 * 3));
  const std::span<const float> values = batch->normalized_images();
  const auto at = [](int64_t i, int64_t y, int64_t x, int64_t c) {
    return static_cast<size_t>(((i * 8 + y) * 6 + x) * 3 + c);
  };
  for (int64_t i = 0; i < batch->size(); ++i) {
    const auto row = static_cast<size_t>(batch->indices()[static_cast<size_t>(i)]);
    for (int64_t y = 0; y < 8; ++y) {
      for (int64_t x = 0; x < 6; ++x) {
        for (int64_t c = 0; c < 3; ++c) {
          // The middle 8 x 6 of the 12 x 10 image: rows and columns from 2.
          const double stored =
              truth.images[row * 360 + static_cast<size_t>(((y + 2) * 10 + x + 2) * 3 + c)];
          const double want = (stored / 255.0 - options.mean[static_cast<size_t>(c)]) /
                              options.std[static_cast<size_t>(c)];
          CHECK(std::abs(values[at(i, y, x, c)] - want) < 1e-5);
        }
      }
    }
  }

  // Images that differ in size are refused without a crop, naming the options to set.
  const std::string mixed = folder / "mixed.h5";
  testing::WriteOwnSizeFile(mixed, 20);
  CHECK_THROWS_WITH_AS(Loader::Open(mixed, LoaderOptions{}),
                       doctest::Contains("holds images at their own size, and a batch needs one "
                                         "size"),
                       Error);
}

TEST_CASE("normalized batches equal (x / 255 - mean) / std in NCHW order") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 70, kShape, 8, Compression::Parse("zstd"));
  LoaderOptions options;
  options.batch_size = 16;
  options.normalize = true;
  options.mean = {0.5f, 0.25f, 0.75f};
  options.std = {0.2f, 0.3f, 0.4f};
  Loader loader = Loader::Open(path, options);
  loader.SetEpoch(0);
  int64_t seen = 0;
  while (auto batch = loader.Next()) {
    REQUIRE(batch->normalized());
    const auto plane = static_cast<size_t>(kShape.height * kShape.width);
    REQUIRE(batch->normalized_images().size() == static_cast<size_t>(batch->size()) * plane * 3);
    for (size_t i = 0; i < static_cast<size_t>(batch->size()); ++i) {
      const std::vector<uint8_t> image = testing::FileImage(batch->indices()[i], kShape);
      for (size_t c = 0; c < 3; ++c) {
        for (size_t p = 0; p < plane; ++p) {
          const double x = image[p * 3 + c];
          const double want = (x / 255.0 - options.mean[c]) / options.std[c];
          const float got = batch->normalized_images()[(i * 3 + c) * plane + p];
          CHECK(std::abs(got - want) < 1e-6);
        }
      }
      ++seen;
    }
  }
  CHECK(seen == 70);
}

TEST_CASE("echo delivers each loaded batch E times with the same multiset of rows") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 100, kShape, 10, Compression::Parse("none"));
  LoaderOptions options;
  options.batch_size = 16;
  options.echo = 3;
  options.slots = 6;
  Loader loader = Loader::Open(path, options);
  CHECK(loader.batches_per_epoch() == 7 * 3);
  loader.SetEpoch(2);
  std::vector<std::vector<int64_t>> batches;
  while (auto batch = loader.Next()) {
    CHECK(batch->step() == static_cast<int64_t>(batches.size()));
    for (size_t i = 0; i < static_cast<size_t>(batch->size()); ++i) {
      const std::vector<uint8_t> image = testing::FileImage(batch->indices()[i], kShape);
      CHECK(std::equal(image.begin(), image.end(),
                       batch->images().begin() + static_cast<long>(i * image.size())));
    }
    batches.emplace_back(batch->indices().begin(), batch->indices().end());
  }
  REQUIRE(batches.size() == 21);
  std::vector<int64_t> epoch_rows;
  for (size_t s = 0; s < 7; ++s) {
    std::vector<int64_t> loaded = batches[3 * s];
    epoch_rows.insert(epoch_rows.end(), loaded.begin(), loaded.end());
    std::sort(loaded.begin(), loaded.end());
    for (size_t e = 1; e < 3; ++e) {
      // Reshuffled (a short batch of 4 rows may come out in the same order by chance).
      if (batches[3 * s].size() == 16) CHECK(batches[3 * s + e] != batches[3 * s]);
      std::vector<int64_t> copy = batches[3 * s + e];
      std::sort(copy.begin(), copy.end());
      CHECK(copy == loaded);  // same rows
    }
  }
  std::sort(epoch_rows.begin(), epoch_rows.end());
  CHECK(epoch_rows == AllRows(100));
}

}  // namespace
}  // namespace h5feed
