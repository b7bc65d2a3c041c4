#include "hdf5/dataset_storage.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/zstd_filter.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Datasets h5py makes with each kind of storage, and the offset h5py reads for the contiguous
// one (as text, in offset.txt).
struct StorageFiles {
  testing::TempFolder folder;
  std::string path = folder / "storage.h5";

  StorageFiles() {
    testing::RunPython(
        "import numpy as np, h5py\n"
        "with h5py.File(\"" +
        path +
        "\", \"w\") as f:\n"
        "    f.create_dataset(\"chunked\", data=np.ones((6, 4, 4, 3), np.uint8), chunks=(2, 4, 4, "
        "3), shuffle=True, compression=\"gzip\", compression_opts=4, fletcher32=True, "
        "fillvalue=7)\n"
        "    f.create_dataset(\"contiguous\", data=np.arange(24, dtype=np.uint8))\n"
        "    f.create_dataset(\"unwritten\", shape=(5,), dtype=np.uint8)\n"
        "    f.create_dataset(\"external\", shape=(4,), dtype=np.uint8, external=[(\"" +
        std::string(folder / "raw.bin") +
        "\", 0, 4)])\n"
        "    f.create_dataset(\"lzf\", data=np.zeros((4, 2), np.uint8), compression=\"lzf\")\n"
        "    f[\"names\"] = [\"a\", \"b\"]\n"
        "    f[\"g/labels\"] = np.zeros(6, np.int64)\n"
        "    open(\"" +
        std::string(folder / "offset.txt") +
        "\", \"w\").write(str(f[\"contiguous\"].id.get_offset()))");
  }

  DatasetEntry Describe(const std::string& name) const {
    auto lock = Lock();
    SilenceErrors silence;
    const ReadOnlyFile opened = OpenHdf5File(Location(path), FileLocking::kAuto);
    return DescribeDataset(OpenDataset(opened.file.get(), name, path).get(), name);
  }
};

TEST_CASE("a chunked dataset's storage: chunk shape, every filter with its values, fill value") {
  StorageFiles files;
  const DatasetStorage storage = files.Describe("/chunked").storage;
  CHECK_FALSE(storage.problem);
  CHECK(storage.kind == StorageKind::kChunked);
  CHECK(storage.chunk == std::vector<int64_t>{2, 4, 4, 3});
  REQUIRE(storage.filters.size() == 3);
  CHECK(storage.filters[0].id == kShuffleFilterId);
  CHECK(storage.filters[0].values == std::vector<unsigned>{1});  // the element size
  CHECK(storage.filters[1].id == kDeflateFilterId);
  CHECK(storage.filters[1].values == std::vector<unsigned>{4});
  CHECK(storage.filters[2].id == kFletcher32FilterId);
  CHECK(FilterNames(storage.filters) ==
        std::vector<std::string>{"shuffle", "gzip:4", "fletcher32"});
  CHECK(storage.fill_value == 7);
  CHECK_FALSE(storage.address);
}

TEST_CASE("contiguous data says where it starts, once written and when in the file itself") {
  StorageFiles files;
  const DatasetStorage contiguous = files.Describe("/contiguous").storage;
  CHECK(contiguous.kind == StorageKind::kContiguous);
  CHECK(contiguous.chunk.empty());
  CHECK(contiguous.filters.empty());
  REQUIRE(contiguous.address);
  CHECK(std::to_string(*contiguous.address) == ReadText(files.folder / "offset.txt"));

  const DatasetStorage unwritten = files.Describe("/unwritten").storage;
  CHECK(unwritten.kind == StorageKind::kContiguous);
  CHECK_FALSE(unwritten.address);

  const DatasetStorage external = files.Describe("/external").storage;
  CHECK(external.external_files == 1);
  CHECK_FALSE(external.address);
}

TEST_CASE("a dataset of strings has no numeric fill value, and describing it prints nothing") {
  StorageFiles files;
  const DatasetStorage storage = files.Describe("/names").storage;
  CHECK_FALSE(storage.problem);
  CHECK(storage.fill_value == 0);
}

TEST_CASE("a filter is available when this HDF5 runs it: its own, h5feed's zstd, not h5py's lzf") {
  StorageFiles files;
  const DatasetStorage lzf = files.Describe("/lzf").storage;
  REQUIRE(lzf.filters.size() == 1);
  CHECK(lzf.filters[0].name == "lzf");
  CHECK_FALSE(FilterAvailable(lzf.filters[0].id));
  CHECK(FilterAvailable(kDeflateFilterId));
  CHECK(FilterAvailable(static_cast<int>(kZstdFilterId)));
  CHECK_FALSE(FilterAvailable(-1));
}

TEST_CASE("a link through a group that does not exist is absent, and a group opens as no dataset") {
  StorageFiles files;
  auto lock = Lock();
  SilenceErrors silence;
  const ReadOnlyFile opened = OpenHdf5File(Location(files.path), FileLocking::kAuto);
  const hid_t file = opened.file.get();
  CHECK(LinkExists(file, "/g/labels"));
  CHECK(LinkExists(file, "g/labels"));
  CHECK(LinkExists(file, "g"));
  CHECK_FALSE(LinkExists(file, "labels"));
  CHECK_FALSE(LinkExists(file, "/missing/labels"));
  CHECK(TryOpenDataset(file, "/g/labels").valid());
  CHECK_FALSE(TryOpenDataset(file, "g").valid());
  CHECK_FALSE(TryOpenDataset(file, "/missing/labels").valid());
}

}  // namespace
}  // namespace h5feed::hdf5
