#include "hdf5/image_dataset.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "support/caught_error.h"
#include "support/run_python.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

using testing::CaughtError;
using testing::RunPython;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Writes an HDF5 file with h5py: `body` runs with `f` the open file and `z(shape)` a zero
// uint8 array of that shape.
std::string Write(const testing::TempFolder& folder, const std::string& name,
                  const std::string& body) {
  const std::string path = folder / name;
  RunPython("import numpy as np, h5py\nz = lambda *s: np.zeros(s, np.uint8)\nwith h5py.File(\"" +
            path + "\", \"w\") as f:\n    " + body);
  return path;
}

// The rule applied to the file at `path`, with `requested` named.
ImageDatasetChoice Choose(const std::string& path, const std::string& requested = "") {
  auto lock = Lock();
  SilenceErrors silence;
  const ReadOnlyFile opened = OpenHdf5File(Location(path), FileLocking::kAuto);
  return ChooseImageDataset(opened.file.get(), ListDatasets(opened.file.get(), path), requested,
                            path);
}

TEST_CASE("the images are the named dataset, else images, else the only 4-D, else the only 3-D") {
  testing::TempFolder folder;
  const std::string all = Write(folder, "all.h5",
                                "f[\"images\"] = z(2, 4, 5, 3); f[\"x4\"] = z(3, 4, 5, 3); "
                                "f[\"g/x3\"] = z(4, 6, 7)");
  CHECK(Choose(all).Use().dataset.name == "/images");
  CHECK(Choose(all, "x4").Use().dataset.name == "/x4");
  CHECK(Choose(all, "/g/x3").Use().dataset.name == "/g/x3");
  const std::string no_name =
      Write(folder, "no_name.h5", "f[\"x4\"] = z(3, 4, 5, 3); f[\"x3\"] = z(4, 6, 7)");
  CHECK(Choose(no_name).Use().dataset.name == "/x4");
  const std::string gray = Write(
      folder, "gray.h5", "f[\"g/x3\"] = z(4, 6, 7); f[\"f\"] = np.zeros((4, 6, 7, 3), np.float32)");
  const ImageDataset images = Choose(gray).Use();
  CHECK(images.dataset.name == "/g/x3");
  CHECK(images.layout == StoredLayout::kNHW);
  CHECK(images.count == 4);
  CHECK(images.shape == ImageShape{6, 7, 1});
  CHECK_FALSE(images.layout_inferred);
  CHECK(std::string(ToString(images.layout)) == "NHW");
}

TEST_CASE("several candidates of one rank need a name; a file without any lists its datasets") {
  testing::TempFolder folder;
  const std::string two =
      Write(folder, "two.h5",
            "f[\"a\"] = z(2, 4, 4, 3); f[\"b\"] = z(2, 4, 4, 3); f[\"c\"] = z(2, 4, 4)");
  const ImageDatasetChoice several = Choose(two);
  CHECK_FALSE(several.images.has_value());
  const Error e = CaughtError([&] { several.Use(); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "several 4-D uint8 datasets (/a, /b)"));
  CHECK(Contains(e.what(), "--images"));

  const std::string none =
      Write(folder, "none.h5", "f[\"x\"] = np.zeros((4, 6), np.float32); f[\"flat\"] = z(4, 192)");
  const Error missing = CaughtError([&] { Choose(none).Use(); });
  CHECK(missing.code() == ErrorCode::kNotFound);
  CHECK(Contains(missing.what(), "no image dataset in " + none));
  CHECK(Contains(missing.what(), "/flat uint8 (4, 192); /x float32 (4, 6)"));
}

TEST_CASE("a named dataset that is missing, not uint8, or of another rank is refused as such") {
  testing::TempFolder folder;
  const std::string path = Write(
      folder, "odd.h5",
      "f[\"images\"] = np.zeros((4, 8, 8, 3), np.float32); f[\"r5\"] = z(2, 2, 6, 5, 3); f[\"ok\"] = z(2, 4, 4, 3)");
  // "images" names the images even when it cannot be read as such: never another dataset.
  const Error type = CaughtError([&] { Choose(path).Use(); });
  CHECK(type.code() == ErrorCode::kUnsupported);
  CHECK(Contains(type.what(), "dataset /images in " + path + " holds float32 (4, 8, 8, 3)"));
  CHECK(Contains(type.what(), "must be uint8"));
  const Error rank = CaughtError([&] { Choose(path, "r5").Use(); });
  CHECK(rank.code() == ErrorCode::kUnsupported);
  CHECK(Contains(rank.what(), "(2, 2, 6, 5, 3)"));
  const Error absent = CaughtError([&] { Choose(path, "pictures").Use(); });
  CHECK(absent.code() == ErrorCode::kNotFound);
  CHECK(Contains(absent.what(), "no dataset pictures"));
  CHECK(Choose(path, "ok").Use().shape == ImageShape{4, 4, 3});
}

TEST_CASE("a dataset of encoded files is refused with the way to convert it, not an astype") {
  // What h5py makes of JPEG files: variable-length bytes (what rechunk converts), np.void, and
  // fixed-length bytes. "Convert them to uint8 first (a.astype(np.uint8))" would mislead.
  testing::TempFolder folder;
  const std::string path =
      Write(folder, "encoded.h5",
            "v = f.create_dataset(\"vlen\", (2,), dtype=h5py.vlen_dtype(np.uint8)); "
            "v[0] = np.arange(3, dtype=np.uint8); v[1] = v[0]; "
            "f[\"void\"] = np.array([np.void(b\"\\xff\\xd8\"), np.void(b\"\\xff\\xd9\")]); "
            "f[\"fixed\"] = np.array([b\"\\xff\\xd8\", b\"\\x89P\"])");
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"vlen", "holds vlen (2,), not pixels"},
      {"void", "holds opaque (2,), not pixels"},
      {"fixed", "holds string[2] (2,), not pixels"}};
  for (const auto& kind : kinds) {
    // A named copy: clang does not capture a structured binding in the lambda below.
    const std::string& name = kind.first;
    const std::string& held = kind.second;
    CAPTURE(name);
    const Error e = CaughtError([&] { Choose(path, name).Use(); });
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(Contains(e.what(), held));
    CHECK(Contains(e.what(), "h5feed rechunk, from a 1-D dataset of h5py.vlen_dtype(np.uint8)"));
    CHECK_FALSE(Contains(e.what(), "astype"));
  }
}

TEST_CASE("the layout attribute is the dataset's, else the root's, else the shape decides") {
  testing::TempFolder folder;
  const std::string own = Write(folder, "own.h5",
                                "f.attrs[\"layout\"] = \"NHWC\"; f[\"images\"] = z(2, 3, 8, 8); "
                                "f[\"images\"].attrs[\"layout\"] = \"nchw\"");
  const ImageDataset declared = Choose(own).Use();
  CHECK(declared.layout == StoredLayout::kNCHW);
  CHECK_FALSE(declared.layout_inferred);
  CHECK(declared.shape == ImageShape{8, 8, 3});
  const std::string root =
      Write(folder, "root.h5", "f.attrs[\"layout\"] = \"NHWC\"; f[\"images\"] = z(2, 3, 8, 8)");
  CHECK(Choose(root).Use().layout == StoredLayout::kNHWC);
  const std::string none = Write(folder, "none.h5", "f[\"images\"] = z(2, 3, 8, 8)");
  const ImageDataset inferred = Choose(none).Use();
  CHECK(inferred.layout == StoredLayout::kNCHW);
  CHECK(inferred.layout_inferred);
}

TEST_CASE("a layout attribute neither NHWC nor NCHW is inferred for a summary, refused to use") {
  testing::TempFolder folder;
  const std::string path = Write(
      folder, "chw.h5", "f[\"images\"] = z(2, 3, 8, 8); f[\"images\"].attrs[\"layout\"] = \"CHW\"");
  const ImageDatasetChoice choice = Choose(path);
  REQUIRE(choice.images.has_value());
  CHECK(choice.images->layout == StoredLayout::kNCHW);
  CHECK(choice.images->layout_inferred);
  const Error e = CaughtError([&] { choice.Use(); });
  CHECK(e.code() == ErrorCode::kUnsupported);
  CHECK(Contains(e.what(), "layout attribute 'CHW' is neither NHWC nor NCHW"));
}

TEST_CASE("empty images and absurd dimensions are refused") {
  testing::TempFolder folder;
  const std::string empty = Write(folder, "empty.h5", "f[\"images\"] = z(3, 0, 4, 3)");
  const Error e = CaughtError([&] { Choose(empty).Use(); });
  CHECK(e.code() == ErrorCode::kUnsupported);
  CHECK(Contains(e.what(), "empty images"));
  const std::string huge = Write(
      folder, "huge.h5",
      "f.create_dataset(\"images\", shape=(1, 70000, 70000, 3), dtype=np.uint8, chunks=(1, 64, 64, 3))");
  CHECK(CaughtError([&] { Choose(huge).Use(); }).code() == ErrorCode::kCorrupt);
}

TEST_CASE("the layout is declared, else NCHW only when dim 1 alone looks like channels") {
  using Shape = std::vector<int64_t>;
  CHECK(DetectLayout(Shape{10, 3, 32, 32}, "") == StoredLayout::kNCHW);
  CHECK(DetectLayout(Shape{10, 32, 32, 3}, "") == StoredLayout::kNHWC);
  CHECK(DetectLayout(Shape{10, 1, 28, 28}, "") == StoredLayout::kNCHW);
  CHECK(DetectLayout(Shape{10, 3, 5, 3}, "") == StoredLayout::kNHWC);  // ambiguous: h5feed's own
  CHECK(DetectLayout(Shape{10, 32, 32, 3}, "nchw") == StoredLayout::kNCHW);
  CHECK(DetectLayout(Shape{10, 3, 32, 32}, "NHWC") == StoredLayout::kNHWC);
  CHECK(CaughtError([] {
          DetectLayout(Shape{10, 3, 32, 32}, "CHW");
        }).code() == ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace h5feed::hdf5
