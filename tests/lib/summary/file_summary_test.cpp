#include "summary/file_summary.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::summary {
namespace {

using testing::TempFolder;

// Runs Debian's Python (numpy, h5py) on `code`, which must not contain single quotes.
void RunPython(const std::string& code) {
  std::string command = std::string(H5FEED_PYTHON) + " -c '" + code + "'";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
}

using testing::CodeOf;

bool HasNote(const FileSummary& s, const std::string& text) {
  for (const std::string& note : s.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string Attribute(const FileSummary& s, const std::string& name) {
  for (const AttributeText& a : s.attributes) {
    if (a.name == name) return a.value;
  }
  return "<absent>";
}

// Ten 8x6x3 images in chunks of 4 (three chunks, the last one short), zstd level 3.
void WriteH5feedFile(const std::string& path) {
  WriterOptions options;
  options.image_shape = {8, 6, 3};
  options.chunk_images = 4;
  options.compression = Compression::Parse("zstd:3");
  Writer writer = Writer::Create(path, options);
  std::vector<uint8_t> pixels(4 * 144);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i % 7);
  for (int64_t images : {4, 4, 2}) {
    writer.Append(writer.Encode(std::span(pixels).first(images * 144), images));
  }
  DatasetDescription description;
  description.labels = {0, 1, 1, 2, 2, 2, 0, 1, 2, 2};
  for (int i = 0; i < 10; ++i) description.sources.push_back("img" + std::to_string(i) + ".png");
  description.classes = {"cat", "dog", "eel"};
  description.skipped = {{"dog/broken.jpg", "truncated JPEG"}, {"eel/empty.png", "empty file"}};
  description.source_kind = "imagefolder";
  description.shuffle_seed = 42;
  writer.Finish(description);
}

TEST_CASE("an h5feed file is summarized with shape, chunks, ratio, classes and skips") {
  TempFolder dir;
  std::string path = dir / "train.h5";
  WriteH5feedFile(path);
  FileSummary s = SummarizeFile(path);
  CHECK(s.path == path);
  CHECK(s.file_bytes == std::filesystem::file_size(path));
  CHECK(s.is_h5feed);
  CHECK(s.format_version == 1);
  REQUIRE(s.has_images);
  CHECK(s.images == "images");
  CHECK(s.layout == StoredLayout::kNHWC);
  CHECK_FALSE(s.layout_guessed);
  CHECK(s.num_images == 10);
  CHECK(s.height == 8);
  CHECK(s.width == 6);
  CHECK(s.channels == 3);
  CHECK(s.chunk_images == 4);
  CHECK(s.chunk_count == 3);
  CHECK(s.compression == "zstd:3");
  CHECK(s.compression_ratio > 5);  // pixels repeat every 7 bytes
  CHECK(s.labels == "labels");
  REQUIRE(s.classes.size() == 3);
  CHECK(s.classes[0].name == "cat");
  CHECK(s.classes[0].count == 2);
  CHECK(s.classes[1].count == 3);
  CHECK(s.classes[2].name == "eel");
  CHECK(s.classes[2].count == 5);
  CHECK(s.has_skipped);
  REQUIRE(s.skipped.size() == 2);
  CHECK(s.skipped[0].source == "dog/broken.jpg");
  CHECK(s.skipped[0].reason == "truncated JPEG");
  CHECK(Attribute(s, "shuffle_seed") == "42");
  CHECK(Attribute(s, "source_kind") == "imagefolder");
  CHECK(Attribute(s, "created_by").rfind("h5feed ", 0) == 0);
  REQUIRE(s.label_order.has_value());  // 0 | 1 1 | 2 2 2 | 0 | 1 | 2 2
  CHECK(s.label_order->order == "mixed");
  CHECK(s.label_order->runs == 6);
  CHECK(s.label_order->classes == 3);
  CHECK(s.notes.empty());

  const DatasetSummary* images = nullptr;
  for (const DatasetSummary& d : s.datasets) {
    if (d.name == "images") images = &d;
  }
  REQUIRE(images != nullptr);
  CHECK(images->shape == std::vector<int64_t>{10, 8, 6, 3});
  CHECK(images->chunk_shape == std::vector<int64_t>{4, 8, 6, 3});
  CHECK(images->dtype == "uint8");
  CHECK(images->filters == std::vector<std::string>{"zstd:3"});
  CHECK(images->logical_bytes == 10 * 144);
}

// Six images at their own size, "smart:90" with a threshold of 30 bytes (the "JPEGs" are bytes
// that only look the part: a summary never decodes), in chunks of 100 bytes, uncompressed:
// rows 0-3 in chunk 0 (86 bytes), rows 4-5 in chunk 1 (47 bytes).
void WriteOwnSizeFile(const std::string& path) {
  WriterOptions options;
  options.compression = Compression::Parse("none");
  options.flat = FlatLayout{};
  options.flat->chunk_bytes = 100;
  options.flat->max_side = 6;
  options.flat->encoding = StoredEncoding::Parse("smart:90");
  options.flat->smart_threshold = 30;
  Writer writer = Writer::Create(path, options);
  using E = ImageEncoding;
  const std::vector<std::vector<StoredImage>> chunks = {
      {{4, 5, 3, E::kJpeg, 25, 0},    // 60 bytes of pixels: JPEG; landscape
       {2, 3, 3, E::kRaw, 18, 0},     // landscape
       {5, 6, 3, E::kJpeg, 40, 0},    // 90: JPEG; landscape
       {1, 1, 3, E::kRaw, 3, 0}},     // square
      {{3, 3, 3, E::kRaw, 27, 0},     // square
       {6, 2, 3, E::kJpeg, 20, 0}}};  // 36: JPEG; portrait
  for (const std::vector<StoredImage>& records : chunks) {
    uint64_t bytes = 0;
    for (const StoredImage& r : records) bytes += r.bytes;
    std::vector<uint8_t> chunk(bytes, 7);
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, records, encoded);
    writer.Append(encoded);
  }
  DatasetDescription description;
  description.labels = {0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 6; ++i) description.sources.push_back("c/" + std::to_string(i) + ".jpg");
  description.classes = {"cat", "dog"};
  description.source_kind = "imagefolder";
  writer.Finish(description);
}

TEST_CASE("an own-size file is summarized with encodings, sizes, aspect ratios and chunks") {
  TempFolder dir;
  std::string path = dir / "flat.h5";
  WriteOwnSizeFile(path);
  FileSummary s = SummarizeFile(path);
  CHECK(s.is_h5feed);
  CHECK(s.format_version == 2);
  REQUIRE(s.has_images);
  CHECK(s.images == "images");
  CHECK(s.layout == StoredLayout::kFlat);
  CHECK(s.num_images == 6);
  CHECK(s.height == 6);
  CHECK(s.width == 6);
  CHECK(s.channels == 3);
  CHECK(s.chunk_images == 4);
  CHECK(s.chunk_count == 2);
  CHECK(s.compression == "none");
  CHECK(s.compression_ratio == doctest::Approx(1.0));
  REQUIRE(s.own_size.has_value());
  const OwnSizeSummary& o = *s.own_size;
  CHECK(o.encoding == "smart:90");
  CHECK(o.smart_threshold == 30);
  CHECK(o.encodings.of(ImageEncoding::kRaw) == 3);
  CHECK(o.encodings.of(ImageEncoding::kJpeg) == 3);
  CHECK(o.max_side == 6);
  CHECK(o.chunk_bytes == 100);
  CHECK(o.chunks == 2);
  CHECK(o.mean_images_per_chunk == doctest::Approx(3.0));
  CHECK(o.min_images_per_chunk == 2);
  CHECK(o.max_images_per_chunk == 4);
  CHECK(o.height.min == 1);  // heights 4 2 5 1 3 6
  CHECK(o.height.median == 3);
  CHECK(o.height.max == 6);
  CHECK(o.width.min == 1);  // widths 5 3 6 1 3 2
  CHECK(o.width.median == 3);
  CHECK(o.width.max == 6);
  CHECK(o.gray_images == 0);
  CHECK(o.aspect.portrait == 1);
  CHECK(o.aspect.square == 2);
  CHECK(o.aspect.landscape == 3);
  CHECK(o.pixel_bytes == 234);
  CHECK(o.image_bytes == 133);
  CHECK(o.chunk_fill == doctest::Approx(133.0 / 200));
  CHECK(o.stored_bytes == 200);  // two uncompressed chunks, zero tails included
  CHECK(o.pixel_ratio == doctest::Approx(234.0 / 200));
  CHECK(s.classes.size() == 2);
  CHECK(s.notes.empty());
}

TEST_CASE("an own-size file whose table lost a dataset is reported with a note, not refused") {
  TempFolder dir;
  std::string path = dir / "flat.h5";
  WriteOwnSizeFile(path);
  RunPython("import h5py; f = h5py.File(\"" + path + "\", \"r+\"); del f[\"image_offsets\"]");
  FileSummary s = SummarizeFile(path);
  CHECK(s.format_version == 2);
  CHECK_FALSE(s.has_images);
  CHECK_FALSE(s.own_size.has_value());
  CHECK(HasNote(s, "the table of images at their own size cannot be read"));
  CHECK(s.classes.size() == 2);
}

TEST_CASE("a foreign h5py file is summarized with its layout inferred and a note") {
  TempFolder dir;
  std::string path = dir / "mine.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f.create_dataset(\"x\", data=np.zeros((20, 3, 16, 12), dtype=np.uint8), "
            "chunks=(5, 3, 16, 12), compression=\"gzip\", compression_opts=4, shuffle=True); "
            "f[\"labels\"] = np.array([0, 1] * 10, dtype=np.uint8); f.attrs[\"note\"] = \"mine\"");
  FileSummary s = SummarizeFile(path);
  CHECK_FALSE(s.is_h5feed);
  CHECK(s.format_version == 0);
  REQUIRE(s.has_images);
  CHECK(s.images == "x");
  CHECK(s.layout == StoredLayout::kNCHW);
  CHECK(s.layout_guessed);
  CHECK(s.num_images == 20);
  CHECK(s.height == 16);
  CHECK(s.width == 12);
  CHECK(s.channels == 3);
  CHECK(s.chunk_images == 5);
  CHECK(s.chunk_count == 4);
  CHECK(s.compression == "shuffle+gzip:4");
  CHECK(s.compression_ratio > 10);  // zeros
  REQUIRE(s.classes.size() == 2);
  CHECK(s.classes[1].name == "1");
  CHECK(s.classes[1].count == 10);
  CHECK_FALSE(s.has_skipped);
  CHECK(Attribute(s, "note") == "mine");
  CHECK(HasNote(s, "no h5feed attributes: a foreign HDF5 file; h5feed rechunk converts it"));
  CHECK(HasNote(s, "inferred"));
}

TEST_CASE("a class-sorted h5py file is reported sorted by label, with a note on rechunk") {
  TempFolder dir;
  const std::string sorted = dir / "sorted.h5", unlabelled = dir / "unlabelled.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + sorted +
            "\", \"w\"); f[\"images\"] = np.zeros((300, 2, 2, 3), dtype=np.uint8); "
            "f[\"labels\"] = np.repeat(np.arange(3), 100); f.close(); "
            "g = h5py.File(\"" +
            unlabelled + "\", \"w\"); g[\"images\"] = np.zeros((300, 2, 2, 3), dtype=np.uint8)");
  const FileSummary s = SummarizeFile(sorted);
  REQUIRE(s.label_order.has_value());
  CHECK(s.label_order->order == "sorted");
  CHECK(s.label_order->runs == 3);
  CHECK(HasNote(s,
                "the rows are stored sorted by label: batches of chunks:W and quasi:W "
                "hold few classes"));
  CHECK(HasNote(s, "h5feed rechunk " + sorted + " OUT.h5 --seed 0"));
  CHECK(s.label_order->random_runs == doctest::Approx(201).epsilon(0.01));
  // Without labels every row is 0: one class, nothing to say.
  const FileSummary none = SummarizeFile(unlabelled);
  CHECK_FALSE(none.label_order.has_value());
}

TEST_CASE("a layout attribute that is neither NHWC nor NCHW is noted and ignored") {
  TempFolder dir;
  std::string path = dir / "odd.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f[\"images\"] = np.zeros((2, 3, 8, 8), dtype=np.uint8); "
            "f[\"images\"].attrs[\"layout\"] = \"CHW\"");
  FileSummary s = SummarizeFile(path);
  CHECK(s.layout == StoredLayout::kNCHW);
  CHECK(s.layout_guessed);
  CHECK(HasNote(s, "layout attribute 'CHW' is neither NHWC nor NCHW"));
}

TEST_CASE("the chunk count comes from the shape even when chunks are unwritten") {
  TempFolder dir;
  std::string path = dir / "sparse.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "d = f.create_dataset(\"images\", shape=(100, 4, 4, 3), dtype=np.uint8, "
            "chunks=(10, 4, 4, 3)); d[0] = 1");
  FileSummary s = SummarizeFile(path);
  CHECK(s.chunk_count == 10);
  CHECK(s.layout == StoredLayout::kNHWC);
  CHECK(s.classes.empty());
  CHECK(s.labels.empty());
}

TEST_CASE("a grayscale (N, H, W) dataset is summarized as images of one channel") {
  TempFolder dir;
  std::string path = dir / "gray.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + path +
            "\", \"w\"); "
            "f.create_dataset(\"x\", data=np.zeros((12, 7, 5), np.uint8), chunks=(4, 7, 5)); "
            "f[\"y\"] = np.arange(12) % 3");
  const FileSummary s = SummarizeFile(path);
  REQUIRE(s.has_images);
  CHECK(s.images == "x");
  CHECK(s.layout == StoredLayout::kNHW);
  CHECK_FALSE(s.layout_guessed);
  CHECK(s.num_images == 12);
  CHECK(s.height == 7);
  CHECK(s.width == 5);
  CHECK(s.channels == 1);
  CHECK(s.chunk_images == 4);
  CHECK(s.chunk_count == 3);
  CHECK(HasNote(s, "grayscale (N, H, W): read as H x W x 1"));
  CHECK(HasNote(s, "h5feed rechunk converts it"));
}

TEST_CASE("a file without images, or with several candidates, says so") {
  TempFolder dir;
  std::string none = dir / "none.h5";
  std::string two = dir / "two.h5";
  RunPython("import numpy as np, h5py; f = h5py.File(\"" + none +
            "\", \"w\"); "
            "f[\"g/feature\"] = np.zeros((4, 5), dtype=np.float32); "
            "f[\"names\"] = [\"a\", \"b\"]; g = h5py.File(\"" +
            two +
            "\", \"w\"); "
            "g[\"a\"] = np.zeros((2, 4, 4, 3), dtype=np.uint8); g[\"b\"] = g[\"a\"][:]");
  FileSummary s = SummarizeFile(none);
  CHECK_FALSE(s.has_images);
  REQUIRE(s.datasets.size() == 2);
  CHECK(s.datasets[0].name == "g/feature");
  CHECK(s.datasets[0].dtype == "float32");
  CHECK(s.datasets[1].is_string);
  CHECK(HasNote(s, "no image dataset in " + none));
  CHECK(s.images.empty());

  FileSummary t = SummarizeFile(two);
  CHECK_FALSE(t.has_images);
  CHECK(HasNote(t, "--images"));
}

TEST_CASE("an unfinished conversion's temporary file is called unusable") {
  TempFolder dir;
  std::string path = dir / ".train.h5.partial-123";
  RunPython("import numpy as np, h5py; h5py.File(\"" + path +
            "\", \"w\")[\"images\"] = "
            "np.zeros((2, 4, 4, 3), dtype=np.uint8)");
  CHECK(HasNote(SummarizeFile(path), "unfinished h5feed conversion"));
}

TEST_CASE("missing, non-HDF5 and truncated files are clear errors") {
  TempFolder dir;
  std::string message;
  CHECK(CodeOf([&] { SummarizeFile(dir / "absent.h5"); }, &message) == ErrorCode::kNotFound);
  CHECK(message.find("absent.h5") != std::string::npos);

  std::string text = dir / "notes.h5";
  std::ofstream(text) << "not HDF5";
  CHECK(CodeOf([&] { SummarizeFile(text); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.starts_with(text + " is not an HDF5 file"));

  std::string cut = dir / "cut.h5";
  WriteH5feedFile(cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  CHECK(CodeOf([&] { SummarizeFile(cut); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("truncated") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::summary
