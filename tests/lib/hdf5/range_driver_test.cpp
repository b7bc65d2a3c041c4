// The range driver: HDF5 reading a file through an io::RandomAccessFile (what it does for
// remote files), here over local files so that every read can be counted and failed.
#include "hdf5/range_driver.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec/zstd_filter.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "h5feed/writer.h"
#include "support/faulty_file.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

using testing::FaultyFile;
using testing::TempFolder;

constexpr int64_t kImages = 120;
constexpr ImageShape kShape{8, 8, 3};
constexpr ImageShape kLargeShape{64, 64, 3};  // 1.4 MB of images: several blocks

// An h5feed file of 12 chunks; label i = i % 5.
void WriteFile(const std::string& path, ImageShape shape = kShape,
               Compression compression = Compression::Parse("zstd")) {
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = 10;
  options.compression = compression;
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  description.classes = {"a", "b", "c", "d", "e"};
  for (int64_t first = 0; first < kImages; first += 10) {
    std::vector<uint8_t> pixels(static_cast<size_t>(10 * shape.bytes()));
    for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(j * 7 + first);
    writer.Append(writer.Encode(pixels, 10));
    for (int64_t i = first; i < first + 10; ++i) {
      description.labels.push_back(i % 5);
      description.sources.push_back("img" + std::to_string(i));
    }
  }
  description.source_kind = "npy";
  writer.Finish(description);
}

std::vector<int64_t> ReadLabels(hid_t file) {
  Dataset labels(H5Dopen2(file, "labels", H5P_DEFAULT));
  REQUIRE(labels);
  std::vector<int64_t> values(kImages);
  REQUIRE(H5Dread(labels.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  return values;
}

// All of /images, or nothing when HDF5 fails to read it.
std::optional<std::vector<uint8_t>> ReadImages(hid_t file, ImageShape shape = kShape) {
  Dataset images(H5Dopen2(file, "images", H5P_DEFAULT));
  REQUIRE(images);
  std::vector<uint8_t> values(static_cast<size_t>(kImages * shape.bytes()));
  if (H5Dread(images.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    return std::nullopt;
  }
  return values;
}

TEST_CASE("HDF5 reads through the range driver what it reads from the file itself") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  WriteFile(path);
  codec::RegisterZstdFilter();
  auto lock = Lock();
  SilenceErrors silence;
  File direct(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(direct);
  PropertyList access = RangeDriverAccess(io::OpenPosixFile(path));
  File through(H5Fopen("served-train.h5", H5F_ACC_RDONLY, access.get()));
  REQUIRE(through);
  CHECK(ReadLabels(through.get()) == ReadLabels(direct.get()));
  CHECK(ReadImages(through.get()) == ReadImages(direct.get()));
  CHECK(ReadImages(through.get()).has_value());
  CHECK(FileName(through.get()) == "served-train.h5");
}

TEST_CASE("all the metadata of a file within one block comes from one read") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  WriteFile(path);
  auto counted = std::make_shared<FaultyFile>(io::OpenPosixFile(path));
  REQUIRE(counted->size() < kBlockBytes);
  auto lock = Lock();
  SilenceErrors silence;
  {
    PropertyList access = RangeDriverAccess(counted);
    File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
    REQUIRE(file);
    ReadLabels(file.get());
    Dataset table(H5Dopen2(file.get(), "chunk_index", H5P_DEFAULT));
    CHECK(table);
  }
  CHECK(counted->reads() == 1);
  CHECK(counted->bytes_read() == counted->size());
}

TEST_CASE("a read the file refuses fails the HDF5 call, and the error says why") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  WriteFile(path);
  auto failing = std::make_shared<FaultyFile>(io::OpenPosixFile(path));
  failing->FailNthRead(0, ECONNRESET);
  auto lock = Lock();
  SilenceErrors silence;
  PropertyList access = RangeDriverAccess(failing);
  File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
  CHECK_FALSE(file);
  const std::optional<Error> error = TakeDriverError();
  REQUIRE(error);
  CHECK(error->code() == ErrorCode::kIo);
  CHECK(std::string(error->what()).find("reset") != std::string::npos);
  CHECK_FALSE(TakeDriverError());  // taken once

}

TEST_CASE("a failed read of data makes StackError report that read's error and code") {
  TempFolder folder;
  const std::string path = folder / "large.h5";
  WriteFile(path, kLargeShape, Compression::Parse("none"));
  auto failing = std::make_shared<FaultyFile>(io::OpenPosixFile(path));
  REQUIRE(failing->size() > 4 * kBlockBytes);
  // Chunks only lie there: the metadata is at the start and the end.
  failing->FailReadsTouching(2 * kBlockBytes, 3 * kBlockBytes, EIO);
  auto lock = Lock();
  SilenceErrors silence;
  PropertyList access = RangeDriverAccess(failing);
  File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
  REQUIRE(file);
  REQUIRE_FALSE(ReadImages(file.get(), kLargeShape));
  const Error reported = StackError(ErrorCode::kCorrupt, "reading /images", path);
  CHECK(reported.code() == ErrorCode::kIo);
  CHECK(std::string(reported.what()).find("reading /images: ") == 0);
  CHECK(std::string(reported.what()).find("Input/output error") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::hdf5
