#include "bench/file_kind.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "h5feed/writer.h"

namespace h5feed::bench {
namespace {

// An h5feed file of 1,001 images of 10 x 10 x 10 in chunks of 16, zstd:1.
index::DatasetIndex OneSizeIndex() {
  index::DatasetIndex input;
  input.path = "one.h5";
  input.samples = 1001;
  input.shape = {10, 10, 10};
  input.chunk_samples = 16;
  input.is_h5feed = true;
  input.filters = {index::FilterStep{index::FilterKind::kZstd, 32015, {1}}};
  return input;
}

// An h5feed file of 100 raw images of 500 x 400 x 3 and 1000 x 800 x 3, in chunks of 64 KiB,
// zstd:1.
index::DatasetIndex OwnSizeIndex() {
  index::DatasetIndex input;
  input.path = "own.h5";
  input.samples = 100;
  input.shape = {1000, 800, 3};
  input.chunk_samples = 30;
  input.is_h5feed = true;
  input.stored_layout = StoredLayout::kFlat;
  input.encoding = "raw";
  input.filters = {index::FilterStep{index::FilterKind::kZstd, 32015, {1}}};
  std::vector<StoredRow> rows;
  for (int i = 0; i < 100; ++i) {
    const ImageShape shape = i % 2 ? ImageShape{1000, 800, 3} : ImageShape{500, 400, 3};
    rows.push_back({0, static_cast<uint64_t>(shape.bytes()), shape, ImageEncoding::kRaw});
  }
  input.rows = RowLocator(std::move(rows), ChunkRows({0, 30, 60, 90, 100}), 64 << 10);
  return input;
}

SweepGrid Grid(const char* chunks, const char* compressions) {
  return ParseGrid(chunks, compressions, "64", "random");
}

TEST_CASE("a file of one image size varies images per chunk and compression") {
  const auto kind = FileKind::Of(OneSizeIndex());
  const std::vector<FileVariant> files = kind->Variants(Grid("8,32", "none,zstd:3"));
  REQUIRE(files.size() == 4);
  CHECK(files[1] == FileVariant{8, Compression::Parse("zstd:3")});
  CHECK(files[2] == FileVariant{32, Compression::Parse("none")});
  CHECK(kind->stored() == FileVariant{16, Compression::Parse("zstd:1")});
  const SweepRun defaults = kind->Defaults();
  CHECK(defaults.file == FileVariant{DefaultChunkImages({10, 10, 10}, 1001), Compression{}});
  CHECK(defaults.cache_mb == 512);
  CHECK(kind->NoReferenceLoaders().empty());
  CHECK(kind->Note(Grid("8,32", "none")).empty());
}

TEST_CASE("chunk sizes past a file's image count make one variant, measured once") {
  const auto kind = FileKind::Of(OneSizeIndex());  // 1,001 images
  const SweepGrid grid = Grid("64,1001,1024,4096", "none,zstd:3");
  const std::vector<FileVariant> files = kind->Variants(grid);
  REQUIRE(files.size() == 4);
  CHECK(files[0] == FileVariant{64, Compression::Parse("none")});
  CHECK(files[2] == FileVariant{1001, Compression::Parse("none")});
  CHECK(files[3] == FileVariant{1001, Compression::Parse("zstd:3")});
  CHECK(kind->Note(grid) ==
        "Chunks of 1024, 4096 images hold more than the file's 1001: each is one chunk of 1001 "
        "images, a variant measured once.");
}

TEST_CASE("a file of one image size needs no crop and refuses encodings and chunk bytes") {
  const auto kind = FileKind::Of(OneSizeIndex());
  CHECK(kind->OptionsProblem({.chunks_or_compression = true}, "FILE").empty());
  const std::string problem = kind->OptionsProblem({.encodings_or_chunk_bytes = true}, "FILE");
  CHECK(problem.find("--encodings and --chunk-bytes") == 0);
  CHECK(problem.find("FILE stores one image size") != std::string::npos);
}

TEST_CASE("a file of images at their own size varies encodings and chunk bytes") {
  const auto kind = FileKind::Of(OwnSizeIndex());
  SweepGrid grid = Grid("16", "none");  // not its axes: unused
  // By default: the input's own encoding, then raw and jpeg:90, at the input's chunk bytes.
  const std::vector<FileVariant> defaults = kind->Variants(grid);
  REQUIRE(defaults.size() == 2);
  CHECK(defaults[0] == kind->stored());
  CHECK(defaults[1].encoding.ToString() == "jpeg:90");
  grid.encodings = ParseEncodings("raw,jpeg:80");
  grid.chunk_bytes = ParseChunkBytes("64K,1M");
  const std::vector<FileVariant> files = kind->Variants(grid);
  REQUIRE(files.size() == 4);
  // The input's own variant keeps the input's compression; the others take their encoding's.
  CHECK(files[0] == FileVariant{StoredEncoding{}, 64 << 10, Compression::Parse("zstd:1")});
  CHECK(kind->IsInput(files[0]));
  CHECK(files[1] ==
        FileVariant{StoredEncoding::Parse("jpeg:80"), 64 << 10, Compression::Parse("none")});
  CHECK(files[2] == FileVariant{StoredEncoding{}, 1 << 20, Compression::Parse("zstd:3")});
  CHECK_FALSE(kind->IsInput(files[2]));
  CHECK(kind->Defaults().file == FileVariant{StoredEncoding{}, kDefaultChunkBytes, Compression{}});
  CHECK(kind->Note(grid).find("at their own sizes (raw)") != std::string::npos);
  CHECK(kind->NoReferenceLoaders().find("--compare-h5py") != std::string::npos);
}

TEST_CASE("a file of images at their own size needs a crop and refuses images per chunk") {
  const auto kind = FileKind::Of(OwnSizeIndex());
  CHECK(kind->OptionsProblem({}, "own.h5")
            .find("own.h5 stores its images at their own sizes, not all of one: "
                  "every run must crop") == 0);
  CHECK(kind->OptionsProblem({.chunks_or_compression = true, .augment = true}, "FILE")
            .find("sweep --encodings and --chunk-bytes instead") != std::string::npos);
  CHECK(kind->OptionsProblem({.encodings_or_chunk_bytes = true, .augment = true}, "FILE").empty());
}

TEST_CASE("a file of images at their own size that all have one is swept without a crop") {
  // As `h5feed bench` reads it (loader/reading_plan.h); its variants keep that one size.
  index::DatasetIndex input = OwnSizeIndex();
  std::vector<StoredRow> rows;
  for (int i = 0; i < 100; ++i) {
    rows.push_back(
        {0, static_cast<uint64_t>(input.shape.bytes()), input.shape, ImageEncoding::kRaw});
  }
  input.rows = RowLocator(std::move(rows), ChunkRows({0, 30, 60, 90, 100}), 64 << 10);
  const auto kind = FileKind::Of(input);
  CHECK(kind->OptionsProblem({}, "own.h5").empty());
  CHECK(kind->OptionsProblem({.augment = true}, "own.h5").empty());
  CHECK(kind->OptionsProblem({.chunks_or_compression = true}, "FILE")
            .find("sweep --encodings and --chunk-bytes instead") != std::string::npos);
}

TEST_CASE("a variant is the input only in an h5feed file stored exactly so") {
  index::DatasetIndex input = OneSizeIndex();
  CHECK(FileKind::Of(input)->IsInput(FileVariant{16, Compression::Parse("zstd:1")}));
  CHECK_FALSE(FileKind::Of(input)->IsInput(FileVariant{16, Compression::Parse("zstd:3")}));
  input.is_h5feed = false;
  CHECK_FALSE(FileKind::Of(input)->IsInput(FileVariant{16, Compression::Parse("zstd:1")}));
  input.is_h5feed = true;
  input.filters = {index::FilterStep{index::FilterKind::kOther, 32000, {}}};  // lzf
  CHECK(CompressionOf(input) == "other");
  CHECK(FileKind::Of(input)->stored() == FileVariant{16, Compression::Parse("none")});
  CHECK_FALSE(FileKind::Of(input)->IsInput(FileVariant{16, Compression::Parse("none")}));
}

TEST_CASE("the disk bound covers the largest variant with padding and zstd's worst case") {
  const auto kind = FileKind::Of(OneSizeIndex());
  const SweepGrid grid = Grid("16,1000", "none,zstd:1");
  const uint64_t bound = kind->DiskBound(PlanSweep(kind->Variants(grid), grid, kind->Defaults()));
  // chunk 1000 pads 1,001 images of 1,000 bytes to 2,000; zstd may add 0.4%.
  CHECK(bound >= static_cast<uint64_t>(2000 * 1000 * 1.004));
  CHECK(bound < (uint64_t{32} << 20));
}

TEST_CASE("the disk bound of images at their own size allows chunks' tails to double them") {
  const auto kind = FileKind::Of(OwnSizeIndex());
  SweepGrid grid = Grid("16", "none");
  grid.encodings = ParseEncodings("jpeg:90");  // stored uncompressed
  const uint64_t bound = kind->DiskBound(PlanSweep(kind->Variants(grid), grid, kind->Defaults()));
  const uint64_t pixels = 50 * (500 * 400 * 3) + 50 * (1000 * 800 * 3);
  // Twice the pixels, and two chunks raised to the largest image.
  CHECK(bound >= 2 * pixels + 2 * (1000 * 800 * 3));
  CHECK(bound < 2 * pixels + (uint64_t{24} << 20));
}

}  // namespace
}  // namespace h5feed::bench
