#include "hdf5/dataset_listing.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "support/caught_error.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

using testing::CaughtError;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("every dataset is listed in name order with its type, shape, chunks and filters") {
  testing::TempFolder folder;
  const std::string path = folder / "mixed.h5";
  testing::RunPython(
      "import numpy as np, h5py\n"
      "with h5py.File(\"" +
      path +
      "\", \"w\") as f:\n"
      "    f.create_dataset(\"images\", data=np.zeros((10, 4, 4, 3), np.uint8), chunks=(5, 4, 4, 3),"
      " compression=\"gzip\", compression_opts=4, shuffle=True)\n"
      "    f[\"g/labels\"] = np.zeros(10, \">i2\")\n"
      "    f[\"names\"] = [\"a\", \"b\"]\n"
      "    f[\"fixed\"] = np.array([b\"abc\"], \"S8\")\n"
      "    f.create_dataset(\"lzf\", data=np.zeros((6, 2), np.float32), compression=\"lzf\")\n"
      "    f[\"scalar\"] = 3.5");
  auto lock = Lock();
  SilenceErrors silence;
  const ReadOnlyFile opened = OpenHdf5File(Location(path), FileLocking::kAuto);
  const std::vector<DatasetEntry> datasets = ListDatasets(opened.file.get(), path);
  REQUIRE(datasets.size() == 6);
  std::vector<std::string> names;
  for (const DatasetEntry& d : datasets) names.push_back(d.name);
  CHECK(names ==
        std::vector<std::string>{"/fixed", "/g/labels", "/images", "/lzf", "/names", "/scalar"});

  const DatasetEntry& images = *FindDataset(datasets, "images");
  CHECK(images.dtype == "uint8");
  CHECK(images.is_uint8);
  CHECK(images.element_bytes == 1);
  CHECK(images.dims == std::vector<int64_t>{10, 4, 4, 3});
  CHECK(images.storage.chunk == std::vector<int64_t>{5, 4, 4, 3});
  CHECK(FilterNames(images.storage.filters) == std::vector<std::string>{"shuffle", "gzip:4"});
  CHECK(FindDataset(datasets, "/images") == &images);

  const DatasetEntry& labels = *FindDataset(datasets, "g/labels");
  CHECK(labels.dtype == "int16 (big-endian)");
  CHECK(labels.is_integer);
  CHECK_FALSE(labels.is_uint8);
  CHECK(labels.storage.chunk.empty());
  CHECK(FindDataset(datasets, "names")->dtype == "string");
  CHECK(FindDataset(datasets, "names")->element_bytes == 0);
  CHECK(FindDataset(datasets, "fixed")->dtype == "string[8]");
  CHECK(FilterNames(FindDataset(datasets, "lzf")->storage.filters) ==
        std::vector<std::string>{"lzf"});
  CHECK(FindDataset(datasets, "scalar")->dims.empty());
  CHECK(FindDataset(datasets, "labels") == nullptr);

  CHECK(ListText({images, labels}) ==
        "/images uint8 (10, 4, 4, 3); /g/labels int16 (big-endian) (10,)");
  CHECK(ListText({}) == "none");
  CHECK(StoredBytes(OpenDataset(opened.file.get(), "/images", path).get()) > 0);
  const Error missing = CaughtError([&] { OpenDataset(opened.file.get(), "/nothing", path); });
  CHECK(missing.code() == ErrorCode::kCorrupt);
  CHECK(Contains(missing.what(), "opening dataset /nothing failed for " + path));
}

}  // namespace
}  // namespace h5feed::hdf5
