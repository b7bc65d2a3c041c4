#include "hdf5/compound_type.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/whole_dataset.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

struct Pair {
  uint64_t first;
  uint32_t second;
};

// Packed on disk: first at 0, second at 8, 12 bytes a row.
Datatype PairType(bool on_disk) {
  const std::vector<CompoundMember> members = {
      {"first", on_disk ? 0 : offsetof(Pair, first),
       on_disk ? StoredIntegerType<uint64_t>() : MemoryIntegerType<uint64_t>()},
      {"second", on_disk ? 8 : offsetof(Pair, second),
       on_disk ? StoredIntegerType<uint32_t>() : MemoryIntegerType<uint32_t>()}};
  return CompoundType(on_disk ? 12 : sizeof(Pair), members);
}

TEST_CASE("compound rows written whole read back whole, and match the type written") {
  testing::TempFolder folder;
  const std::string path = folder / "pairs.h5";
  const File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  const std::vector<Pair> pairs = {{1, 2}, {uint64_t{1} << 63, 0xffffffffu}};
  const uint64_t rows[1] = {pairs.size()};
  WriteWholeDataset(file.get(), "pairs", PairType(true).get(), PairType(false).get(), rows,
                    pairs.data());

  const Dataset dataset = OpenDataset(file.get(), "pairs", path);
  const CompoundMatch match = MatchCompound(dataset.get(), PairType(true).get(), "pairs");
  CHECK(match.is_compound);
  CHECK(match.missing_member.empty());
  CHECK(match.equal);
  REQUIRE(ElementCount(dataset.get(), "pairs") == 2);
  std::vector<Pair> read(2);
  ReadWholeDataset(dataset.get(), PairType(false).get(), read.data(), "pairs");
  CHECK(read[1].first == pairs[1].first);
  CHECK(read[1].second == pairs[1].second);
}

TEST_CASE("a stored type is told apart: not compound, a member missing, another layout") {
  testing::TempFolder folder;
  const std::string path = folder / "others.h5";
  testing::RunPython(
      "import numpy as np, h5py\n"
      "with h5py.File(\"" +
      path +
      "\", \"w\") as f:\n"
      "    f[\"plain\"] = np.zeros(3, np.uint64)\n"
      "    f[\"short\"] = np.zeros(3, [(\"first\", \"<u8\")])\n"
      "    f[\"swapped\"] = np.zeros(3, [(\"second\", \"<u4\"), (\"first\", \"<u8\")])");
  auto lock = Lock();
  SilenceErrors silence;
  const File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const Datatype expected = PairType(true);
  auto match = [&](const char* name) {
    return MatchCompound(OpenDataset(file.get(), name, path).get(), expected.get(), name);
  };
  CHECK_FALSE(match("plain").is_compound);
  CHECK(match("short").missing_member == "second");
  const CompoundMatch swapped = match("swapped");
  CHECK(swapped.is_compound);
  CHECK(swapped.missing_member.empty());
  CHECK_FALSE(swapped.equal);
}

TEST_CASE("a compound type HDF5 refuses is an internal error") {
  const std::vector<CompoundMember> past_the_end = {{"x", 8, StoredIntegerType<uint64_t>()}};
  CHECK_THROWS_AS(CompoundType(8, past_the_end), Error);
}

}  // namespace
}  // namespace h5feed::hdf5
