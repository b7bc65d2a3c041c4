// Resource limits (docs/reliability.md, "Limits"): absurd values in a file or in the options
// are refused at Open with a clear error, before any allocation of that size. The files are
// crafted with h5py: HDF5 stores nothing for chunks never written, so a file can claim 10^12
// images or 10^9 class names in a few KiB. Without the checks, each of these would make Open
// allocate terabytes (std::bad_alloc, or the OOM killer), which the test would report.

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/field.h"
#include "h5feed/loader.h"
#include "h5feed/writer.h"
#include "io/resource_limits.h"
#include "memory/slot_layout.h"
#include "support/caught_error.h"
#include "support/run_python.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::CaughtError;
using testing::TempFolder;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An h5py file whose /images has `shape` and `chunks` (Python tuples) and no data written;
// `extra` is more Python run with the file `f` open.
std::string CraftFile(const TempFolder& folder, const std::string& shape, const std::string& chunks,
                      const std::string& extra = "") {
  const std::string path = folder / "crafted.h5";
  testing::RunPython("import h5py, numpy as np\nf = h5py.File(\"" + path +
                     "\", \"w\")\nf.create_dataset(\"images\", shape=" + shape +
                     ", chunks=" + chunks + ", dtype=\"u1\")\n" + extra + "f.close()\n");
  return path;
}

LoaderOptions Small() {
  LoaderOptions options;
  options.batch_size = 8;
  options.threads = 2;
  options.slots = 2;
  return options;
}

Error OpenError(const std::string& path, const LoaderOptions& options) {
  return CaughtError([&] { Loader::Open(path, options); });
}

TEST_CASE("a file claiming 10^12 images or 2^62 is refused before its labels are allocated") {
  TempFolder folder;
  for (const char* rows : {"10**12", "2**62"}) {
    const std::string path =
        CraftFile(folder, std::string("(") + rows + ", 16, 16, 3)", "(8, 16, 16, 3)");
    const Error e = OpenError(path, Small());
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(Contains(e.what(), "crafted.h5"));
    CHECK(Contains(e.what(), "bytes per image in memory"));
  }
}

TEST_CASE("one image over 2 GiB is refused before a chunk buffer is sized for it") {
  TempFolder folder;
  const std::string path = CraftFile(folder, "(4, 65536, 65536, 3)", "(1, 256, 256, 3)");
  const Error e = OpenError(path, Small());
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "one image would exceed"));
}

TEST_CASE("10^9 class names are refused before they are read") {
  TempFolder folder;
  const std::string path =
      CraftFile(folder, "(64, 8, 8, 3)", "(8, 8, 8, 3)",
                "f.create_dataset(\"classes\", shape=(10**9,), chunks=(4096,), "
                "dtype=h5py.string_dtype())\n");
  const Error e = OpenError(path, Small());
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "1000000000 class names"));
}

TEST_CASE("a chunk claiming more stored bytes than any codec makes is refused at Open") {
  // The claim lies inside the file (a 4 MiB dataset follows the chunks), so only the codec
  // bound catches it: 1 MiB claimed for a chunk of 8 x 8 x 8 x 3 = 1,536 bytes.
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 64, ImageShape{8, 8, 3}, 8, Compression::Parse("zstd:3"));
  testing::RunPython("import h5py, numpy as np\nf = h5py.File(\"" + path +
                     "\", \"r+\")\n"
                     "f.create_dataset(\"padding\", data=np.ones(4 << 20, np.uint8))\n"
                     "t = f[\"chunk_index\"][()]\nt[\"stored_bytes\"][2] = 1 << 20\n"
                     "f[\"chunk_index\"][...] = t\nf.close()\n");
  const Error e = OpenError(path, Small());
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "chunk 2 of /images"));
  CHECK(Contains(e.what(), "1048576 stored bytes, more than any codec"));
}

TEST_CASE("absurd thread and slot counts are refused, naming the limit") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 64, ImageShape{8, 8, 3}, 8, Compression::Parse("none"));
  LoaderOptions options = Small();
  options.threads = 100000;
  Error e = OpenError(path, options);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "threads is 100000; it must be in [0, 1024]"));
  options = Small();
  options.slots = 1 << 20;
  e = OpenError(path, options);
  CHECK(Contains(e.what(), "slots is 1048576"));
}

TEST_CASE("slots x batch bytes or a cache beyond the machine's memory are refused at Open") {
  // 2 million images of 512 x 512 x 3: 1.5 TB of pixels claimed, none stored.
  TempFolder folder;
  const std::string path = CraftFile(folder, "(2000000, 512, 512, 3)", "(16, 512, 512, 3)");
  LoaderOptions options = Small();
  options.batch_size = 100000;  // 75 GiB a slot
  options.slots = 64;
  Error e = OpenError(path, options);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(
      Contains(e.what(),
               "lower LoaderOptions.slots, LoaderOptions.batch_size or LoaderOptions.cache_bytes"));
  CHECK(Contains(e.what(), "GiB of memory"));
  options = Small();
  options.cache_bytes = int64_t{1} << 50;  // 1 PiB; the file's chunks would fill 1.5 TB of it
  e = OpenError(path, options);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "plus a cache of"));
}

TEST_CASE("a batch size beyond the file's rows reserves slots for the rows, not the batch size") {
  // Five 64 x 64 images read with batch_size 5000: a slot of 5000 images would be 58 MiB
  // (17.9 GiB at 224 x 224), yet no batch can hold more than the 5 rows there are.
  TempFolder folder;
  const std::string path = folder / "five.h5";
  const ImageShape shape{64, 64, 3};
  testing::WriteH5feedFile(path, 5, shape, 2, Compression{});
  LoaderOptions options = Small();
  options.batch_size = 5000;
  options.slots = 3;
  Loader loader = Loader::Open(path, options);
  const uint64_t five_rows = 3 * memory::SlotLayout::Bytes(5, shape.bytes(), {});
  CHECK(loader.stats().slot_bytes == five_rows);
  auto batch = loader.Next();
  REQUIRE(batch);
  CHECK(batch->size() == 5);
  CHECK_FALSE(loader.Next());
  // Two ranks of five rows read three each (the shard pads by repeating a row).
  options.shard.world_size = 2;
  options.shard.rank = 1;
  Loader half = Loader::Open(path, options);
  CHECK(half.stats().slot_bytes == 3 * memory::SlotLayout::Bytes(3, shape.bytes(), {}));
  CHECK(half.Next()->size() == 3);
}

TEST_CASE("the memory check counts every view's outputs, not the stored image's size") {
  // 2 million images of 8 x 8 x 3 claimed: 192 bytes each, 20 MB a slot of 100,000. Eight
  // 1024 x 1024 float32 crops of each are 100 MB a sample, 10 TB a slot.
  TempFolder folder;
  const std::string path = CraftFile(folder, "(2000000, 8, 8, 3)", "(16, 8, 8, 3)");
  LoaderOptions options = Small();
  options.batch_size = 100000;
  options.normalize = true;
  AugmentOptions crops;
  crops.random_resized_crop.height = crops.random_resized_crop.width = 1024;
  crops.count = 8;
  options.output.views = {crops};
  const Error e = OpenError(path, options);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(
      Contains(e.what(),
               "lower LoaderOptions.slots, LoaderOptions.batch_size or LoaderOptions.cache_bytes"));
}

TEST_CASE("the masks made ahead for every slot's batch count in the memory check") {
  // 16 grayscale 8 x 8 images with 16 uint16 masks each, read as uint8 crops in a view whose
  // room is 4096 x 4096 (max_output): a slot row holds 16 MiB of image room, and its masks in
  // that view take 16 x 2 bytes a pixel, 32 times as much. The slots alone take about a 20th of
  // this machine's memory, which fits; their batches' masks take 1.6 times it, which does not.
  TempFolder folder;
  const std::string path = folder / "masks.h5";
  constexpr int64_t kRows = 16;
  constexpr int kMasks = 16;
  const ImageShape shape{8, 8, 1};
  WriterOptions writer_options;
  writer_options.image_shape = shape;
  writer_options.chunk_images = kRows;
  std::vector<FieldColumn> columns(kMasks);
  LoaderOptions options = Small();
  options.fields.clear();
  for (int k = 0; k < kMasks; ++k) {
    const std::string name = "mask" + std::to_string(k);
    writer_options.fields.push_back(
        FieldSpec{name, FieldKind::kMask, FieldType::kUint16, {shape.height, shape.width}, {}});
    options.fields.push_back(name);
    for (int64_t r = 0; r < kRows; ++r) {
      const std::vector<uint8_t> mask(static_cast<size_t>(shape.height * shape.width * 2),
                                      static_cast<uint8_t>(r + k));
      columns[static_cast<size_t>(k)].Append(mask);
    }
  }
  Writer writer = Writer::Create(path, writer_options);
  writer.Append(
      writer.Encode(std::vector<uint8_t>(static_cast<size_t>(kRows * shape.bytes()), 7), kRows));
  writer.AppendFields(columns);
  DatasetDescription description;
  description.classes = {"one"};
  description.labels.assign(kRows, 0);
  for (int64_t r = 0; r < kRows; ++r) description.sources.push_back(std::to_string(r) + ".png");
  description.source_kind = "npy";
  writer.Finish(description);

  constexpr int64_t kSide = 4096;
  options.batch_size = kRows;
  options.normalize = true;
  options.output.type = ElementType::kUint8;
  options.output.augment.random_resized_crop = {8, 8, 0.5, 1.0};
  options.output.augment.max_output_height = options.output.augment.max_output_width = kSide;
  options.open_probe = false;
  const double memory = static_cast<double>(io::limits::PhysicalMemoryBytes());
  const double slot = static_cast<double>(kRows * kSide * kSide);  // the images' room
  options.slots = static_cast<int>(std::ceil(memory / 20 / slot));
  REQUIRE(options.slots <= 1024);               // a machine of at most 5 TiB
  REQUIRE(options.slots * slot * 33 > memory);  // slots and masks: more than the machine has
  const Error e = OpenError(path, options);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "masks.h5"));
  // Each image's masks: 16 of 4096 x 4096 uint16.
  CHECK(Contains(e.what(), "batches' masks ("));
  CHECK(Contains(e.what(), "512.0 MiB an image"));
  CHECK(
      Contains(e.what(),
               "lower LoaderOptions.slots, LoaderOptions.batch_size or LoaderOptions.cache_bytes, "
               "or ask for fewer masks in LoaderOptions.fields or smaller views"));
}

}  // namespace
}  // namespace h5feed
