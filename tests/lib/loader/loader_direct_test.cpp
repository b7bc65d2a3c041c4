// LoaderOptions::direct: reading with O_DIRECT delivers the batches the default (mapped,
// page-cache) reading delivers, on files whose chunks lie on 4 KiB boundaries (written by
// h5feed now) and on files whose chunks do not (written before, or by h5py), and leaves the
// file out of the page cache.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/caught_error.h"
#include "support/page_cache.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::TempFolder;

constexpr ImageShape kShape{40, 37, 3};  // 4,440 bytes: off every page boundary

struct Delivered {
  std::vector<int64_t> rows;
  std::vector<int64_t> labels;
  std::vector<uint8_t> images;
};

// Two epochs of `path` read with `direct`, every batch in order; the file is dropped from the
// page cache first, so the reading ahead is exercised.
std::vector<Delivered> ReadTwoEpochs(const std::string& path, bool direct) {
  testing::DropFromPageCache(path);
  LoaderOptions options;
  options.batch_size = 20;
  options.sampler = SamplerOptions::Parse("chunks:3");
  options.threads = 2;
  options.seed = 5;
  options.direct = direct;
  options.cache_bytes = 40 * kShape.bytes();  // chunks come and go
  Loader loader = Loader::Open(path, options);
  std::vector<Delivered> batches;
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    loader.SetEpoch(epoch);
    while (std::optional<Batch> batch = loader.Next()) {
      batches.push_back({std::vector<int64_t>(batch->indices().begin(), batch->indices().end()),
                         std::vector<int64_t>(batch->labels().begin(), batch->labels().end()),
                         std::vector<uint8_t>(batch->images().begin(), batch->images().end())});
    }
  }
  return batches;
}

// A file's chunks (or contiguous blocks) are on 4 KiB boundaries, or not: asserted with h5py.
void ExpectAlignment(const std::string& path, bool aligned) {
  std::string program =
      "import h5py\n"
      "f = h5py.File('" +
      path +
      "', 'r')\n"
      "d = f['images']\n"
      "if d.chunks is None:\n"
      "    row = d.shape[1] * d.shape[2] * d.shape[3]\n"
      "    places = [(d.id.get_offset() + r * row, 4 * row) for r in range(0, d.shape[0], 4)]\n"
      "else:\n"
      "    infos = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]\n"
      "    places = [(i.byte_offset, i.size) for i in infos]\n"
      "# HDF5 aligns objects of a page or more (the Writer's threshold).\n"
      "pages = [o for o, size in places if size >= 4096]\n";
  program += aligned ? "assert pages and all(o % 4096 == 0 for o in pages), places\n"
                     : "assert any(o % 4096 != 0 for o, size in places), places\n";
  testing::RunPython(path + ".alignment", program);
}

TEST_CASE("direct reading delivers the batches mapped reading delivers, aligned or not") {
  TempFolder folder;
  struct File {
    std::string name;
    bool aligned;
  };
  const std::string raw = folder / "raw.h5";  // chunks of 17,760 bytes, aligned by the Writer
  const std::string zstd = folder / "zstd.h5";
  const std::string small = folder / "small.h5";  // chunks of 3,024 bytes: left unaligned
  const std::string h5py = folder / "h5py.h5";    // contiguous, read by address, unaligned
  testing::WriteH5feedFile(raw, 130, kShape, 4, Compression::Parse("none"));
  testing::WriteH5feedFile(zstd, 130, kShape, 4, Compression::Parse("zstd"));
  testing::WriteH5feedFile(small, 130, {9, 7, 3}, 16, Compression::Parse("none"));
  testing::RunPython(h5py, testing::PythonPattern(130, kShape) +
                               "import h5py\n"
                               "with h5py.File('" +
                               h5py +
                               "', 'w') as f:\n"
                               "    f.create_dataset('misalign', data=np.zeros(3, np.uint8))\n"
                               "    f.create_dataset('images', data=nhwc)\n"
                               "    f.create_dataset('labels', data=labels)\n");
  ExpectAlignment(raw, true);
  ExpectAlignment(small, false);
  ExpectAlignment(h5py, false);
  if (!testing::ReadsDirect(raw)) {
    MESSAGE("the file system of " << folder.path() << " refuses O_DIRECT: nothing to compare");
    LoaderOptions options;
    options.direct = true;
    CHECK(testing::CodeOf([&] { Loader::Open(raw, options); }) == ErrorCode::kUnsupported);
    return;
  }
  for (const std::string& path : {raw, zstd, small, h5py}) {
    CAPTURE(path);
    const std::vector<Delivered> mapped = ReadTwoEpochs(path, false);
    const std::vector<Delivered> direct = ReadTwoEpochs(path, true);
    REQUIRE(mapped.size() == direct.size());
    REQUIRE(mapped.size() >= 14);
    for (size_t b = 0; b < mapped.size(); ++b) {
      CAPTURE(b);
      CHECK(direct[b].rows == mapped[b].rows);
      CHECK(direct[b].labels == mapped[b].labels);
      CHECK(direct[b].images == mapped[b].images);
    }
  }
}

TEST_CASE("a direct run leaves the file out of the page cache; a default run leaves it in") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  // 7.4 MB of pixels; its metadata (chunk table, labels, sources, checksums) 40-odd pages.
  testing::WriteH5feedFile(path, 600, {64, 64, 3}, 8, Compression::Parse("none"));
  if (!testing::ReadsDirect(path) || !testing::DropFromPageCache(path)) {
    MESSAGE("O_DIRECT or dropping pages is not available in " << folder.path());
    return;
  }
  for (bool direct : {true, false}) {
    CAPTURE(direct);
    testing::DropFromPageCache(path);
    LoaderOptions options;
    options.batch_size = 50;
    options.threads = 2;
    options.direct = direct;
    Loader loader = Loader::Open(path, options);
    loader.SetEpoch(0);
    int64_t images = 0;
    while (std::optional<Batch> batch = loader.Next()) images += batch->size();
    CHECK(images == 600);
    // HDF5 reads the metadata (superblock, chunk table, labels, checksums) through the page
    // cache itself: a few pages of the file's 1,850.
    const double resident = testing::ResidentShare(path);
    if (direct) {
      CHECK(resident < 0.05);
    } else {
      CHECK(resident > 0.95);
    }
  }
}

}  // namespace
}  // namespace h5feed
