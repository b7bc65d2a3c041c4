#include "hdf5/integer_dataset.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/whole_dataset.h"
#include "support/caught_error.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

struct Fixture {
  testing::TempFolder folder;
  std::string path = folder / "integers.h5";
  File file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};

  Dataset Open(const std::string& name) const { return OpenDataset(file.get(), name, path); }
};

TEST_CASE("integer tables read back exactly in the type, order and shape written") {
  Fixture f;
  const std::vector<uint64_t> big = {0, 1, std::numeric_limits<uint64_t>::max()};
  const std::vector<int32_t> shapes = {1, 2, 3, -4, 5, std::numeric_limits<int32_t>::min()};
  WriteIntegerDataset<uint64_t>(f.file.get(), "big", big);
  WriteIntegerDataset<int32_t>(f.file.get(), "shapes", shapes, 3);
  const int64_t rows[1] = {3};
  const int64_t table[2] = {2, 3};
  CHECK(ReadIntegers<uint64_t>(f.Open("big").get(), rows, "big") == big);
  CHECK(ReadIntegers<int32_t>(f.Open("shapes").get(), table, "shapes") == shapes);

  auto lock = Lock();
  const DatasetEntry entry = DescribeDataset(f.Open("shapes").get(), "shapes");
  CHECK(entry.dims == std::vector<int64_t>{2, 3});
  CHECK(entry.dtype == "int32");
  CHECK(entry.storage.kind == StorageKind::kContiguous);
}

TEST_CASE("integers are stored little-endian whatever the machine") {
  Fixture f;
  WriteIntegerDataset<uint64_t>(f.file.get(), "checksums", std::vector<uint64_t>{1});
  auto lock = Lock();
  const Datatype type(H5Dget_type(f.Open("checksums").get()));
  CHECK(H5Tequal(type.get(), H5T_STD_U64LE) > 0);
  CHECK(StoredIntegerType<uint8_t>() == H5T_STD_U8LE);
  CHECK(MemoryIntegerType<int32_t>() == H5T_NATIVE_INT32);
}

TEST_CASE("another integer type or shape reads as nothing, for the caller to say what it wanted") {
  Fixture f;
  WriteIntegerDataset<int64_t>(f.file.get(), "labels", std::vector<int64_t>{1, 2, 3, 4});
  const Dataset labels = f.Open("labels");
  const int64_t four[1] = {4};
  const int64_t three[1] = {3};
  const int64_t two_by_two[2] = {2, 2};
  const int64_t negative[1] = {-4};
  CHECK(ReadIntegers<int64_t>(labels.get(), four, "labels").has_value());
  CHECK_FALSE(ReadIntegers<uint64_t>(labels.get(), four, "labels"));  // signedness
  CHECK_FALSE(ReadIntegers<int32_t>(labels.get(), four, "labels"));   // size
  CHECK_FALSE(ReadIntegers<int64_t>(labels.get(), three, "labels"));
  CHECK_FALSE(ReadIntegers<int64_t>(labels.get(), two_by_two, "labels"));
  CHECK_FALSE(ReadIntegers<int64_t>(labels.get(), negative, "labels"));
}

TEST_CASE("integers h5py wrote big-endian read as the values they are") {
  testing::TempFolder folder;
  const std::string path = folder / "big_endian.h5";
  testing::RunPython(
      "import numpy as np, h5py\n"
      "with h5py.File(\"" +
      path +
      "\", \"w\") as f:\n"
      "    f[\"offsets\"] = np.array([1, 256, 2**40], \">u8\")");
  auto lock = Lock();
  SilenceErrors silence;
  const File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const int64_t rows[1] = {3};
  CHECK(ReadIntegers<uint64_t>(OpenDataset(file.get(), "offsets", path).get(), rows, "offsets") ==
        std::vector<uint64_t>{1, 256, uint64_t{1} << 40});
  CHECK(ReadIntegerDataset(file.get(), "offsets", path) ==
        std::vector<int64_t>{1, 256, int64_t{1} << 40});
}

TEST_CASE("an unsigned value of 2^63 or more is refused, not clamped to the int64 maximum") {
  testing::TempFolder folder;
  const std::string path = folder / "huge.h5";
  testing::RunPython(
      "import numpy as np, h5py\n"
      "with h5py.File(\"" +
      path +
      "\", \"w\") as f:\n"
      "    f[\"labels\"] = np.array([3, 2**63 + 5, 1], np.uint64)\n"
      "    f[\"fits\"] = np.array([3, 2**63 - 1], np.uint64)");
  auto lock = Lock();
  SilenceErrors silence;
  const File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  std::string message;
  CHECK(testing::CodeOf([&] { ReadIntegerDataset(file.get(), "labels", path); }, &message) ==
        ErrorCode::kCorrupt);
  CHECK(message.find("labels in " + path + " holds a value that does not fit a signed 64-bit") !=
        std::string::npos);
  CHECK(ReadIntegerDataset(file.get(), "fits", path) ==
        std::vector<int64_t>{3, std::numeric_limits<int64_t>::max()});
}

TEST_CASE("an empty table is a dataset of shape (0,) and reads back empty") {
  Fixture f;
  WriteIntegerDataset<uint8_t>(f.file.get(), "encodings", std::vector<uint8_t>{});
  const int64_t none[1] = {0};
  const std::optional<std::vector<uint8_t>> values =
      ReadIntegers<uint8_t>(f.Open("encodings").get(), none, "encodings");
  REQUIRE(values);
  CHECK(values->empty());
  CHECK(ElementCount(f.Open("encodings").get(), "encodings") == 0);
}

TEST_CASE("a dataset that cannot be written is an error naming it and the file") {
  Fixture f;
  WriteIntegerDataset<int64_t>(f.file.get(), "labels", std::vector<int64_t>{1});
  const Error error = testing::CaughtError(
      [&] { WriteIntegerDataset<int64_t>(f.file.get(), "labels", std::vector<int64_t>{1}); });
  CHECK(error.code() == ErrorCode::kIo);
  CHECK(std::string(error.what()).find("writing dataset /labels failed for " + f.path) !=
        std::string::npos);
}

}  // namespace
}  // namespace h5feed::hdf5
