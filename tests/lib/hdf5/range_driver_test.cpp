// The range driver: HDF5 reading a file through an io::RandomAccessFile (what it does for
// remote files), here over local files so that every read can be counted and failed.
#include "hdf5/range_driver.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/image_shape.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/zstd_filter.h"
#include "support/faulty_file.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

using testing::FaultyFile;
using testing::TempFolder;

constexpr int64_t kImages = 120;
constexpr ImageShape kShape{8, 8, 3};
constexpr ImageShape kLargeShape{64, 64, 3};  // 1.4 MB of images: several blocks

// A file as HDF5 sees an h5feed file here: /images, kImages images in 12 chunks of 10 (zstd,
// or stored as they are), and /labels, label i = i % 5. Written with HDF5 itself: the Writer is
// format's, a module above this one.
void WriteFile(const std::string& path, ImageShape shape = kShape, bool zstd = true) {
  RegisterZstdFilter();
  auto lock = Lock();
  File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(file);
  const hsize_t dims[4] = {kImages, static_cast<hsize_t>(shape.height),
                           static_cast<hsize_t>(shape.width), static_cast<hsize_t>(shape.channels)};
  const hsize_t chunk[4] = {10, dims[1], dims[2], dims[3]};
  Dataspace space(H5Screate_simple(4, dims, nullptr));
  PropertyList create(H5Pcreate(H5P_DATASET_CREATE));
  REQUIRE(H5Pset_chunk(create.get(), 4, chunk) >= 0);
  const unsigned level[1] = {3};
  if (zstd) REQUIRE(H5Pset_filter(create.get(), kZstdFilterId, H5Z_FLAG_OPTIONAL, 1, level) >= 0);
  Dataset images(H5Dcreate2(file.get(), "images", H5T_STD_U8LE, space.get(), H5P_DEFAULT,
                            create.get(), H5P_DEFAULT));
  REQUIRE(images);
  std::vector<uint8_t> pixels(static_cast<size_t>(kImages * shape.bytes()));
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(j * 7 + j / 1000);
  REQUIRE(H5Dwrite(images.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, pixels.data()) >=
          0);
  const hsize_t rows[1] = {kImages};
  Dataspace label_space(H5Screate_simple(1, rows, nullptr));
  Dataset labels(H5Dcreate2(file.get(), "labels", H5T_STD_I64LE, label_space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(labels);
  std::vector<int64_t> values(kImages);
  for (int64_t i = 0; i < kImages; ++i) values[static_cast<size_t>(i)] = i % 5;
  REQUIRE(H5Dwrite(labels.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >=
          0);
}

std::vector<int64_t> ReadLabels(hid_t file) {
  Dataset labels(H5Dopen2(file, "labels", H5P_DEFAULT));
  REQUIRE(labels);
  std::vector<int64_t> values(kImages);
  REQUIRE(H5Dread(labels.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >=
          0);
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
    Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
    CHECK(images);
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
  WriteFile(path, kLargeShape, /*zstd=*/false);
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
