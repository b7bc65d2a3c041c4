#include "hdf5/byte_sequences.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "hdf5/chunk_cache.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/row_read.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

// h5py's datasets of encoded files (vlen uint8 and int8), of strings, and of planar pixels.
struct Files {
  testing::TempFolder folder;
  std::string path = folder / "encoded.h5";
  std::unique_lock<std::recursive_mutex> lock;
  File file;

  Files() {
    testing::RunPython(
        "import numpy as np, h5py\n"
        "with h5py.File(\"" +
        path +
        "\", \"w\") as f:\n"
        "    d = f.create_dataset(\"bytes\", (3,), dtype=h5py.vlen_dtype(np.uint8))\n"
        "    d[0] = np.arange(5, dtype=np.uint8)\n"
        "    d[1] = np.zeros(0, np.uint8)\n"
        "    d[2] = np.full(300, 7, np.uint8)\n"
        "    s = f.create_dataset(\"signed\", (1,), dtype=h5py.vlen_dtype(np.int8))\n"
        "    s[0] = np.array([-1, 2], np.int8)\n"
        "    f[\"names\"] = [\"a\", \"b\"]\n"
        "    f.create_dataset(\"planar\", data=np.arange(5 * 2 * 3 * 4, dtype=np.uint8)"
        ".reshape(5, 2, 3, 4), chunks=(2, 2, 3, 4), compression=\"gzip\")");
    lock = Lock();
    file = File(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  }

  Dataset Open(const std::string& name) const { return OpenDataset(file.get(), name, path); }
};

TEST_CASE("datasets of variable-length bytes are told from strings and from arrays") {
  Files f;
  CHECK(HoldsByteSequences(f.Open("bytes").get()));
  CHECK(HoldsByteSequences(f.Open("signed").get()));
  CHECK_FALSE(HoldsByteSequences(f.Open("names").get()));
  CHECK_FALSE(HoldsByteSequences(f.Open("planar").get()));
}

TEST_CASE("an element's bytes land in the memory the caller places, never freed by HDF5") {
  Files f;
  SilenceErrors silence;
  const Dataset bytes = f.Open("bytes");
  std::vector<std::vector<uint8_t>> blocks;
  const PlaceBytes place = [&](size_t size) {
    blocks.emplace_back(size);
    return blocks.back().data();
  };
  const std::optional<std::span<uint8_t>> first = ReadByteSequence(bytes.get(), 0, place);
  REQUIRE(first);
  CHECK(first->data() == blocks.back().data());
  CHECK(std::vector<uint8_t>(first->begin(), first->end()) == std::vector<uint8_t>{0, 1, 2, 3, 4});
  const std::optional<std::span<uint8_t>> empty = ReadByteSequence(bytes.get(), 1, place);
  REQUIRE(empty);
  CHECK(empty->empty());
  const std::optional<std::span<uint8_t>> last = ReadByteSequence(bytes.get(), 2, place);
  REQUIRE(last);
  CHECK(last->size() == 300);
}

TEST_CASE("an element of signed bytes is read as stored, its negative bytes not clamped to 0") {
  // h5py.vlen_dtype(np.int8) holds a file's bytes as well: -1 is the byte 0xFF that starts every
  // JPEG, and HDF5's conversion of int8 to uint8 by value would make it 0.
  Files f;
  SilenceErrors silence;
  const Dataset signed_bytes = f.Open("signed");
  std::vector<uint8_t> block;
  const std::optional<std::span<uint8_t>> element =
      ReadByteSequence(signed_bytes.get(), 0, [&](size_t size) {
        block.resize(size);
        return block.data();
      });
  REQUIRE(element);
  CHECK(std::vector<uint8_t>(element->begin(), element->end()) == std::vector<uint8_t>{0xFF, 2});
}

TEST_CASE("no memory to place an element fails the read; what placing throws comes through") {
  Files f;
  SilenceErrors silence;
  const Dataset bytes = f.Open("bytes");
  CHECK_FALSE(ReadByteSequence(bytes.get(), 2, [](size_t) -> uint8_t* { return nullptr; }));
  CHECK_FALSE(ErrorStackText().empty());  // kept for the caller's StackError
  CHECK_THROWS_AS(ReadByteSequence(bytes.get(), 2,
                                   [](size_t) -> uint8_t* { throw std::runtime_error("no room"); }),
                  std::runtime_error);
}

TEST_CASE("whole rows of a filtered dataset read through HDF5, with a chunk cache set") {
  Files f;
  SilenceErrors silence;
  const PropertyList cache = ChunkCacheAccess(size_t{8} << 20);
  size_t slots = 0, bytes = 0;
  double w0 = 0;
  REQUIRE(H5Pget_chunk_cache(cache.get(), &slots, &bytes, &w0) >= 0);
  CHECK(slots == 10007);
  CHECK(bytes == size_t{8} << 20);
  const Dataset planar = OpenDataset(f.file.get(), "planar", f.path, cache.get());
  std::vector<uint8_t> rows(2 * 24);
  REQUIRE(ReadRows(planar.get(), 1, 2, rows));
  for (size_t i = 0; i < rows.size(); ++i) CHECK(rows[i] == 24 + i);
  CHECK(ChunkCacheAccess(0).valid());
}

}  // namespace
}  // namespace h5feed::hdf5
