#include "index/dataset_index.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "codec/checksum.h"
#include "h5feed/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index_test_files.h"

namespace h5feed::index {
namespace {

using testing::CaughtError;
using testing::Contains;
using testing::ForeignFile;
using testing::RunPythonWithH5py;
using testing::TempFolder;

const ImageShape kShape{6, 5, 3};  // 90 bytes per image

// Every chunk's address, size and mask as HDF5 itself reports them, for comparison.
std::vector<ChunkLocation> ChunksByHdf5(const std::string& path, int64_t chunks, int64_t k) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
  REQUIRE(images.valid());
  std::vector<ChunkLocation> located;
  for (int64_t c = 0; c < chunks; ++c) {
    hsize_t offset[4] = {static_cast<hsize_t>(c * k), 0, 0, 0};
    ChunkLocation l;
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(images.get(), offset, &mask, &address, &size) >= 0);
    l.address = address;
    l.stored_bytes = size;
    l.filter_mask = mask;
    located.push_back(l);
  }
  return located;
}

TEST_CASE("an h5feed file's index holds its geometry, labels, classes and every chunk's place") {
  TempFolder folder;
  for (const char* compression : {"zstd:3", "gzip:6", "none"}) {
    const std::string compression_name = compression;
    CAPTURE(compression_name);
    const std::string path = folder / (std::string("train-") + compression + ".h5");
    std::vector<uint8_t> pixels =
        testing::WriteH5feedFile(path, Compression::Parse(compression), 50, 8, kShape);
    DatasetIndex index = OpenDatasetIndex(path, {});
    CHECK(index.path == path);
    CHECK(index.dataset == "/images");
    CHECK(index.samples == 50);
    CHECK(index.shape == kShape);
    CHECK(index.layout == Layout::kNHWC);
    CHECK(index.chunk_samples == 8);
    CHECK(index.chunk_count() == 7);
    CHECK(index.samples_in_chunk(6) == 2);
    CHECK(index.is_h5feed);
    CHECK(index.read_path == ReadPath::kStoredTable);
    CHECK(ReadsByAddress(index.read_path));
    CHECK(index.rows.uniform());
    CHECK(index.stored_layout == StoredLayout::kNHWC);
    CHECK(index.has_checksums);
    const std::string text = compression;
    REQUIRE(index.filters.size() == (text == "none" ? 0u : 1u));
    if (text != "none") {
      CHECK(index.filters[0].kind == (text[0] == 'z' ? FilterKind::kZstd : FilterKind::kDeflate));
    }
    REQUIRE(index.chunks.size() == 7);
    std::vector<ChunkLocation> hdf5 = ChunksByHdf5(path, 7, 8);
    for (size_t c = 0; c < 7; ++c) {
      CAPTURE(c);
      CHECK(index.chunks[c].address == hdf5[c].address);
      CHECK(index.chunks[c].stored_bytes == hdf5[c].stored_bytes);
      CHECK(index.chunks[c].filter_mask == 0);
      // The checksum covers the whole chunk, the last one's zero padding included.
      std::vector<uint8_t> chunk(8 * 90, 0);
      const size_t begin = c * 8 * 90;
      const size_t end = std::min(pixels.size(), begin + chunk.size());
      std::copy(pixels.begin() + begin, pixels.begin() + end, chunk.begin());
      CHECK(index.chunks[c].checksum == codec::ChunkChecksum(chunk));
    }
    REQUIRE(index.labels.size() == 50);
    for (int64_t i = 0; i < 50; ++i) CHECK(index.labels[i] == i % 3);
    CHECK(index.classes == std::vector<std::string>{"a", "b", "c"});
  }
}

TEST_CASE("a file of thousands of chunks is indexed from its stored table, each chunk in place") {
  // Enough chunks for HDF5's chunk B-tree to have several levels; how long opening takes is
  // bench/open_bench.cc's measure.
  TempFolder folder;
  const std::string path = folder / "many.h5";
  const int64_t chunks = 3000;
  testing::WriteH5feedFile(path, Compression::Parse("none"), chunks, 1, ImageShape{2, 2, 1});
  DatasetIndex index = OpenDatasetIndex(path, {});
  CHECK(index.read_path == ReadPath::kStoredTable);
  REQUIRE(index.chunk_count() == chunks);
  REQUIRE(index.chunks.size() == static_cast<size_t>(chunks));
  std::vector<ChunkLocation> hdf5 = ChunksByHdf5(path, chunks, 1);
  for (int64_t c = 0; c < chunks; ++c) {
    CAPTURE(c);
    REQUIRE(index.chunks[c].address == hdf5[c].address);
    REQUIRE(index.chunks[c].stored_bytes == hdf5[c].stored_bytes);
  }
}

TEST_CASE("a missing file, an empty file and a file that is not HDF5 are refused clearly") {
  TempFolder folder;
  Error missing = CaughtError([&] { OpenDatasetIndex(folder / "nothing.h5", {}); });
  CHECK(missing.code() == ErrorCode::kNotFound);
  CHECK(missing.missing_input());  // the command line exits 2 for it
  CHECK(Contains(missing.what(), "nothing.h5 does not exist"));

  std::ofstream(folder / "empty.h5").close();
  Error empty = CaughtError([&] { OpenDatasetIndex(folder / "empty.h5", {}); });
  CHECK(empty.code() == ErrorCode::kCorrupt);
  CHECK(Contains(empty.what(), "empty"));

  std::ofstream(folder / "notes.h5") << "these are notes, not an HDF5 file\n";
  Error text = CaughtError([&] { OpenDatasetIndex(folder / "notes.h5", {}); });
  CHECK(text.code() == ErrorCode::kCorrupt);
  CHECK(Contains(text.what(), "notes.h5 is not an HDF5 file"));

  Error directory = CaughtError([&] { OpenDatasetIndex(folder.path(), {}); });
  CHECK(directory.code() == ErrorCode::kInvalidArgument);
}

TEST_CASE("a truncated file is refused at open as truncated or not HDF5") {
  TempFolder folder;
  const std::string path = folder / "full.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  const uint64_t size = std::filesystem::file_size(path);
  for (uint64_t keep :
       {uint64_t{4}, uint64_t{100}, uint64_t{1000}, size / 2, size - 100, size - 1}) {
    CAPTURE(keep);
    const std::string cut = testing::CopyTo(path, folder / "cut.h5");
    std::filesystem::resize_file(cut, keep);
    Error e = CaughtError([&] { OpenDatasetIndex(cut, {}); });
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK((Contains(e.what(), "truncated or not an HDF5 file") ||
           Contains(e.what(), "is not an HDF5 file")));
  }
}

TEST_CASE("an interrupted conversion is refused, by its name or by its missing attribute") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("gzip:1"), 20, 8, kShape);

  // The writer's temporary name, before the attributes were written.
  const std::string partial = testing::CopyTo(path, folder / ".train.h5.partial-4242");
  RunPythonWithH5py("f = h5py.File(\"" + partial +
                    "\", \"a\")\nfor k in list(f.attrs): del f.attrs[k]");
  Error named = CaughtError([&] { OpenDatasetIndex(partial, {}); });
  CHECK(named.code() == ErrorCode::kCorrupt);
  CHECK(Contains(named.what(), "interrupted conversion"));

  // Renamed, but it has h5feed's chunk table and no format attribute.
  const std::string renamed = testing::CopyTo(path, folder / "renamed.h5");
  RunPythonWithH5py("f = h5py.File(\"" + renamed + "\", \"a\")\ndel f.attrs[\"h5feed_format\"]");
  Error unmarked = CaughtError([&] { OpenDatasetIndex(renamed, {}); });
  CHECK(unmarked.code() == ErrorCode::kCorrupt);
  CHECK(Contains(unmarked.what(), "interrupted conversion"));

  // Any h5py file with /images under a temporary name.
  const std::string hidden =
      testing::CopyTo(ForeignFile("nhwc_contiguous"), folder / ".images.h5.partial-7");
  CHECK(CaughtError([&] { OpenDatasetIndex(hidden, {}); }).code() == ErrorCode::kCorrupt);
}

TEST_CASE("a file in a newer format version is refused, naming both versions") {
  TempFolder folder;
  const std::string path = folder / "future.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 10, 4, kShape);
  RunPythonWithH5py("f = h5py.File(\"" + path +
                    "\", \"a\")\n"
                    "f.attrs.create(\"h5feed_format_version\", 3, dtype=np.int32)");
  Error e = CaughtError([&] { OpenDatasetIndex(path, {}); });
  CHECK(e.code() == ErrorCode::kUnsupported);
  CHECK(Contains(e.what(), "version 3"));
  CHECK(Contains(e.what(), "reads versions up to 2"));
}

TEST_CASE("a chunk table with a row missing is refused") {
  TempFolder folder;
  const std::string path = folder / "short-table.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  RunPythonWithH5py("f = h5py.File(\"" + path +
                    "\", \"a\")\n"
                    "t = f[\"chunk_index\"][:-1]; a = dict(f[\"chunk_index\"].attrs)\n"
                    "del f[\"chunk_index\"]; d = f.create_dataset(\"chunk_index\", data=t)\n"
                    "d.attrs[\"checksum\"] = a[\"checksum\"]");
  Error e = CaughtError([&] { OpenDatasetIndex(path, {}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "has 6 rows for 7 chunks"));
}

TEST_CASE("a chunk table whose addresses HDF5 contradicts is refused: run h5feed rechunk") {
  TempFolder folder;
  const std::string path = folder / "moved.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  // The last chunk is always checked; move it by 8 bytes in the table only.
  RunPythonWithH5py(
      "f = h5py.File(\"" + path +
      "\", \"a\")\n"
      "t = f[\"chunk_index\"][:]; t[\"address\"][-1] -= 8; f[\"chunk_index\"][:] = t");
  Error e = CaughtError([&] { OpenDatasetIndex(path, {}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "does not match the file: chunk 6"));
  CHECK(Contains(e.what(), "h5feed rechunk"));
  // Unchecked, it opens; the checksum catches it at the first read (chunk_reader_test.cpp).
  IndexOptions unchecked;
  unchecked.verify_table_entries = 0;
  CHECK(OpenDatasetIndex(path, unchecked).chunk_count() == 7);
}

TEST_CASE("a chunk table pointing past the end of the file is refused") {
  TempFolder folder;
  const std::string path = folder / "beyond.h5";
  testing::WriteH5feedFile(path, Compression::Parse("gzip:1"), 50, 8, kShape);
  RunPythonWithH5py(
      "import os\nsize = os.path.getsize(\"" + path +
      "\")\n"
      "f = h5py.File(\"" +
      path +
      "\", \"a\")\n"
      "t = f[\"chunk_index\"][:]; t[\"address\"][3] = size; f[\"chunk_index\"][:] = t");
  Error e = CaughtError([&] { OpenDatasetIndex(path, {}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 3 of /images"));
  CHECK(Contains(e.what(), "outside the file"));
}

#ifdef H5FEED_H5REPACK
TEST_CASE("a file rewritten by h5repack is refused at open: its chunks moved") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("gzip:1"), 200, 8, kShape);
  const std::string repacked = folder / "repacked.h5";
  testing::Run(std::string(H5FEED_H5REPACK) + " " + path + " " + repacked);
  Error e = CaughtError([&] { OpenDatasetIndex(repacked, {}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "h5repack"));
  CHECK(Contains(e.what(), "h5feed rechunk"));
}
#endif

struct ForeignCase {
  const char* name;
  ReadPath path;
  Layout layout;
  ImageShape shape;
  int64_t samples;
  int64_t chunk_samples;  // 0: not checked (a block size h5feed chose)
};

TEST_CASE("an h5py file's index says how its layout and storage are read") {
  const ForeignCase cases[] = {
      {"nhwc_gzip_shuffle", ReadPath::kHdf5Chunk, Layout::kNHWC, {6, 5, 3}, 50, 7},
      {"nchw_gzip", ReadPath::kHdf5Chunk, Layout::kNCHW, {6, 5, 3}, 37, 8},
      {"nchw_fletcher32", ReadPath::kHdf5Chunk, Layout::kNCHW, {6, 5, 3}, 37, 5},
      {"nhwc_zstd", ReadPath::kHdf5Chunk, Layout::kNHWC, {6, 5, 3}, 50, 16},
      {"latest_format", ReadPath::kHdf5Chunk, Layout::kNHWC, {6, 5, 3}, 50, 6},
      {"grayscale", ReadPath::kHdf5Chunk, Layout::kNHWC, {6, 5, 1}, 25, 4},
      {"nhwc_contiguous", ReadPath::kContiguous, Layout::kNHWC, {6, 5, 3}, 50, 50},
      {"nchw_contiguous", ReadPath::kContiguous, Layout::kNCHW, {6, 5, 3}, 37, 37},
      {"partial_chunks", ReadPath::kHdf5Hyperslab, Layout::kNHWC, {6, 5, 3}, 30, 4},
      {"compact", ReadPath::kHdf5Hyperslab, Layout::kNHWC, {6, 5, 3}, 4, 4},
      {"declared_nchw", ReadPath::kHdf5Chunk, Layout::kNCHW, {6, 3, 4}, 10, 3},
  };
  for (const ForeignCase& c : cases) {
    const std::string case_name = c.name;
    CAPTURE(case_name);
    DatasetIndex index = OpenDatasetIndex(ForeignFile(c.name), {});
    CHECK(index.read_path == c.path);
    CHECK(index.layout == c.layout);
    CHECK(index.shape == c.shape);
    CHECK(index.samples == c.samples);
    CHECK(index.chunk_samples == c.chunk_samples);
    CHECK_FALSE(index.is_h5feed);
    CHECK_FALSE(index.has_checksums);
    CHECK(ReadsByAddress(index.read_path) == (c.path == ReadPath::kContiguous));
    CHECK(index.chunks.size() ==
          (ReadsByAddress(index.read_path) ? size_t(index.chunk_count()) : 0u));
    CHECK(index.labels.size() == size_t(c.samples));
  }
  DatasetIndex labelled = OpenDatasetIndex(ForeignFile("nhwc_gzip_shuffle"), {});
  for (int64_t i = 0; i < 50; ++i) CHECK(labelled.labels[i] == i % 7);
  DatasetIndex unlabelled = OpenDatasetIndex(ForeignFile("nchw_gzip"), {});
  CHECK(unlabelled.labels == std::vector<int64_t>(37, 0));
  CHECK(unlabelled.classes.empty());
}

TEST_CASE("the image dataset is found by shape when not named images, labels by name") {
  IndexOptions options;
  options.labels = "data/targets";
  DatasetIndex index = OpenDatasetIndex(ForeignFile("elsewhere"), options);
  CHECK(index.dataset == "/data/pixels");
  CHECK(index.samples == 50);
  for (int64_t i = 0; i < 50; ++i) CHECK(index.labels[i] == i % 7);

  options.labels = "data/nothing";
  Error missing = CaughtError([&] { OpenDatasetIndex(ForeignFile("elsewhere"), options); });
  CHECK(missing.code() == ErrorCode::kNotFound);
  CHECK(Contains(missing.what(), "/data/targets int16 (50,)"));
}

TEST_CASE("a file without images says so and lists its datasets with types and shapes") {
  Error e = CaughtError([&] { OpenDatasetIndex(ForeignFile("no_images"), {}); });
  CHECK(e.code() == ErrorCode::kNotFound);
  CHECK_FALSE(e.missing_input());
  CHECK(Contains(e.what(), "no image dataset"));
  CHECK(Contains(e.what(), "/x float32 (4, 6, 5, 3); /y int64 (4,)"));

  IndexOptions named;
  named.images = "pictures";
  Error absent = CaughtError([&] { OpenDatasetIndex(ForeignFile("nhwc_zstd"), named); });
  CHECK(absent.code() == ErrorCode::kNotFound);
  CHECK_FALSE(absent.missing_input());  // the file is there: the work failed, not the input
  CHECK(Contains(absent.what(), "no dataset pictures"));
  CHECK(Contains(absent.what(), "/images uint8 (50, 6, 5, 3)"));
}

TEST_CASE("several image-like datasets need one named") {
  Error e = CaughtError([&] { OpenDatasetIndex(ForeignFile("two_images"), {}); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "/a, /b"));
  IndexOptions named;
  named.images = "/b";
  CHECK(OpenDatasetIndex(ForeignFile("two_images"), named).dataset == "/b");
}

TEST_CASE("images of the wrong type or rank are refused as unsupported") {
  Error type = CaughtError([&] { OpenDatasetIndex(ForeignFile("float_images"), {}); });
  CHECK(type.code() == ErrorCode::kUnsupported);
  CHECK(Contains(type.what(), "float32"));
  CHECK(Contains(type.what(), "must be uint8"));
  Error rank = CaughtError([&] { OpenDatasetIndex(ForeignFile("rank5"), {}); });
  CHECK(rank.code() == ErrorCode::kUnsupported);
  CHECK(Contains(rank.what(), "(2, 2, 6, 5, 3)"));
}

TEST_CASE("labels that are not one integer per image are refused as corrupt") {
  Error length = CaughtError([&] { OpenDatasetIndex(ForeignFile("labels_wrong_length"), {}); });
  CHECK(length.code() == ErrorCode::kCorrupt);
  CHECK(Contains(length.what(), "holds 49 labels for 50 images"));
  Error type = CaughtError([&] { OpenDatasetIndex(ForeignFile("labels_float"), {}); });
  CHECK(type.code() == ErrorCode::kCorrupt);
  CHECK(Contains(type.what(), "float32"));
}

TEST_CASE("a filter neither h5feed nor HDF5 can decode is refused at open") {
  Error e = CaughtError([&] { OpenDatasetIndex(ForeignFile("lzf"), {}); });
  CHECK(e.code() == ErrorCode::kUnsupported);
  CHECK(Contains(e.what(), "lzf"));
  CHECK(Contains(e.what(), "HDF5_PLUGIN_PATH"));
}

TEST_CASE("read paths have names for messages and reports") {
  CHECK(std::string(ToString(ReadPath::kStoredTable)) == "stored chunk table (pread)");
  CHECK(std::string(ToString(ReadPath::kHdf5Hyperslab)) == "HDF5 hyperslabs (H5Dread)");
}

}  // namespace
}  // namespace h5feed::index
