#include "h5feed/verify.h"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "index/dataset_index.h"
#include "lib/index/index_test_files.h"
#include "support/caught_error.h"

namespace h5feed::verify {
namespace {

using index::ChunkLocation;
using index::IndexOptions;
using index::OpenDatasetIndex;

using testing::Contains;
using testing::TempFolder;

constexpr ImageShape kShape{6, 5, 3};

bool Mentions(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines) {
    if (Contains(line, part)) return true;
  }
  return false;
}

// The stored table of `path`, as the index reads it.
std::vector<ChunkLocation> Table(const std::string& path) {
  return OpenDatasetIndex(path, IndexOptions{}).chunks;
}

TEST_CASE("a sound h5feed file verifies with every check listed and nothing left out") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  std::atomic<int64_t> calls{0}, last{0};
  VerifyOptions options;
  options.threads = 2;
  options.on_progress = [&](int64_t done, int64_t total) {
    ++calls;
    last = done;
    CHECK(total == 7);
  };
  VerificationReport report = VerifyFile(path, options);
  CHECK(report.ok());
  CHECK(report.is_h5feed);
  CHECK(report.chunks == 7);
  CHECK(report.chunks_checked == 7);
  CHECK(calls == 7);
  CHECK(last == 7);
  CHECK(report.not_checked.empty());
  CHECK(Mentions(report.checked, "all 7 rows against HDF5"));
  CHECK(Mentions(report.checked, "XXH3-64"));
  CHECK(Mentions(report.checked, "every image against its own"));
  CHECK(report.problems.empty());
  CHECK(report.warnings.empty());
}

TEST_CASE("a file that is not HDF5 at all is refused as not HDF5, not reported damaged") {
  TempFolder folder;
  const std::string path = folder / "notes.h5";
  std::ofstream(path) << "plain text, not HDF5\n";
  std::string message;
  CHECK(testing::CodeOf([&] { VerifyFile(path); }, &message) == ErrorCode::kCorrupt);
  CHECK(Contains(message, path + " is not an HDF5 file"));
}

TEST_CASE("every damaged chunk is listed with its rows, not only the first") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  const std::vector<ChunkLocation> table = Table(path);
  testing::FlipByteInFile(path, table[1].address + 17);
  testing::FlipByteInFile(path, table[6].address);  // the last chunk: rows 48-49 only
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(report.bad_chunks[0].first_row == 8);
  CHECK(report.bad_chunks[0].last_row == 15);
  CHECK(Contains(report.bad_chunks[0].problem, "checksum mismatch"));
  CHECK(report.bad_chunks[1].chunk == 6);
  CHECK(report.bad_chunks[1].first_row == 48);
  CHECK(report.bad_chunks[1].last_row == 49);
  CHECK(report.problems.empty());
  CHECK(report.indexed);
}

TEST_CASE("a stale table row and labels outside the classes are each reported") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  // Chunk 4's row points one byte late; rows 3 and 9 name classes that do not exist.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "t = f[\"chunk_index\"][()]\n"
                             "t[\"address\"][4] += np.uint64(1)\n"
                             "f[\"chunk_index\"][...] = t\n"
                             "f[\"labels\"][3] = 3\n"
                             "f[\"labels\"][9] = -1\n"
                             "f.close()\n");
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  REQUIRE(report.bad_chunks.size() == 1);
  CHECK(report.bad_chunks[0].chunk == 4);
  CHECK(Contains(report.bad_chunks[0].problem, "does not match HDF5's"));
  CHECK(Mentions(report.problems, "label 3 of row 3 is outside the 3 classes"));
  CHECK(Mentions(report.problems, "label -1 of row 9"));
}

TEST_CASE("images whose stored checksums differ are listed by row; chunks that pass still fail") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("zstd:3"), 50, 8, kShape);
  // The pixels are intact (every chunk checksum passes); /row_checksums is damaged for rows
  // 10, 12 and 41.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "for row in (10, 12, 41):\n"
                             "    f[\"row_checksums\"][row] ^= np.uint64(1)\n"
                             "f.close()\n");
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(Contains(report.bad_chunks[0].problem, "row 10: checksum mismatch (stored 0x"));
  CHECK(Contains(report.bad_chunks[0].problem, "(and 1 more rows of the chunk)"));
  CHECK(report.bad_chunks[1].chunk == 5);
  CHECK(Contains(report.bad_chunks[1].problem, "row 41: checksum mismatch"));
  CHECK_FALSE(Contains(report.bad_chunks[1].problem, "more rows"));
  // Each bad image names its source (/sources), the file to check again or re-convert.
  REQUIRE(report.bad_images.size() == 3);
  CHECK(report.bad_images[0].row == 10);
  CHECK(report.bad_images[0].source == "img10");
  CHECK(report.bad_images[2].source == "img41");

  // Without /row_checksums (a file from before they existed) the chunks alone are checked.
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "del f[\"row_checksums\"]\n"
                             "f.close()\n");
  report = VerifyFile(path, VerifyOptions{});
  CHECK(report.ok());
  CHECK_FALSE(Mentions(report.checked, "every image against its own"));
}

// One image of a flat file as the test stores it: its bytes and the record the table gets.
struct FlatImage {
  std::vector<uint8_t> bytes;
  int32_t height = 0, width = 0;
  ImageEncoding encoding = ImageEncoding::kJpeg;
};

// Writes a version 2 ("flat") file of `chunks` groups of images, uncompressed, chunks of 8 KiB;
// the Writer checksums each image as given, so damaged JPEGs pass every checksum.
void WriteFlatFile(const std::string& path, const std::vector<std::vector<FlatImage>>& chunks,
                   StoredEncoding::Kind kind) {
  WriterOptions options;
  options.compression = Compression::Parse("none");
  options.flat = FlatLayout{};
  options.flat->chunk_bytes = 8192;
  options.flat->max_side = 64;
  options.flat->encoding.kind = kind;
  Writer writer = Writer::Create(path, options);
  int64_t images = 0;
  for (const std::vector<FlatImage>& group : chunks) {
    std::vector<uint8_t> chunk;
    std::vector<h5feed::StoredImage> records;
    for (const FlatImage& image : group) {
      chunk.insert(chunk.end(), image.bytes.begin(), image.bytes.end());
      records.push_back({image.height, image.width, 3, image.encoding, image.bytes.size(), 0});
      ++images;
    }
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, records, encoded);
    writer.Append(encoded);
  }
  DatasetDescription d;
  for (int64_t i = 0; i < images; ++i) {
    d.labels.push_back(i % 2);
    d.sources.push_back("c/" + std::to_string(i) + ".jpg");
  }
  d.classes = {"a", "b"};
  d.source_kind = "imagefolder";
  writer.Finish(d);
}

// A JPEG of h x w gradient pixels, quality 90, made by PIL.
FlatImage Jpeg(const TempFolder& folder, int32_t height, int32_t width) {
  const std::string path =
      folder / ("photo" + std::to_string(height) + "x" + std::to_string(width) + ".jpg");
  testing::RunPython(
      "import numpy as np\nfrom PIL import Image\n"
      "y, x = np.mgrid[0:" +
      std::to_string(height) + ", 0:" + std::to_string(width) +
      "]\n"
      "p = np.stack([x * 7 % 256, y * 9 % 256, (x + y) * 5 % 256], -1)\n"
      "Image.fromarray(p.astype(np.uint8)).save(\"" +
      path + "\", quality=90)\n");
  return {testing::ReadBytes(path), height, width, ImageEncoding::kJpeg};
}

FlatImage Raw(int32_t height, int32_t width, uint8_t seed) {
  std::vector<uint8_t> pixels(static_cast<size_t>(height * width * 3));
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(seed + j * 13);
  return {pixels, height, width, ImageEncoding::kRaw};
}

TEST_CASE("a sound own-size file verifies, every JPEG decoded whole") {
  TempFolder folder;
  const std::string path = folder / "flat.h5";
  const FlatImage a = Jpeg(folder, 24, 32), b = Jpeg(folder, 32, 24), c = Jpeg(folder, 16, 16);
  WriteFlatFile(path, {{a, b}, {c}}, StoredEncoding::Kind::kJpeg);
  VerifyOptions options;
  options.threads = 2;
  const VerificationReport report = VerifyFile(path, options);
  CHECK(report.ok());
  CHECK(report.own_size);
  CHECK(report.chunks == 2);
  CHECK(report.encodings.of(ImageEncoding::kJpeg) == 3);
  CHECK(report.encodings.total() == 3);
  CHECK(report.images_decoded == 3);
  CHECK(report.bad_images.empty());
  CHECK(report.problems.empty());
  CHECK(Mentions(report.checked, "JPEG images: all 3 decoded whole"));
  CHECK(Mentions(report.checked, "chunk_bytes, max_side, encoding"));
  CHECK(Mentions(report.checked, "every image against its own"));

  const std::string raw = folder / "raw.h5";
  WriteFlatFile(raw, {{Raw(4, 5, 1), Raw(6, 2, 2)}, {Raw(3, 3, 3)}}, StoredEncoding::Kind::kRaw);
  const VerificationReport raw_report = VerifyFile(raw, VerifyOptions{});
  CHECK(raw_report.ok());
  CHECK(raw_report.encodings.of(ImageEncoding::kRaw) == 3);
  CHECK(raw_report.encodings.of(ImageEncoding::kJpeg) == 0);
  CHECK(raw_report.images_decoded == 0);
  CHECK_FALSE(Mentions(raw_report.checked, "JPEG images"));
}

TEST_CASE("JPEGs that pass their checksums but do not decode are listed by row and chunk") {
  TempFolder folder;
  const std::string path = folder / "flat.h5";
  const FlatImage a = Jpeg(folder, 24, 32), b = Jpeg(folder, 32, 24), c = Jpeg(folder, 16, 16);
  FlatImage taller = a;  // the table says 25 rows, the header 24
  taller.height = 25;
  FlatImage truncated = b;
  truncated.bytes.resize(b.bytes.size() * 3 / 5);
  WriteFlatFile(path, {{a, b}, {taller, c}, {truncated}}, StoredEncoding::Kind::kJpeg);
  const VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK(report.images_decoded == 5);
  REQUIRE(report.bad_images.size() == 2);
  CHECK(report.bad_images[0].row == 2);
  CHECK(report.bad_images[0].chunk == 1);
  CHECK(Contains(report.bad_images[0].problem,
                 "JPEG: the header says 24x32x3, the file's table "
                 "25x32x3"));
  CHECK(report.bad_images[1].row == 4);
  CHECK(report.bad_images[1].chunk == 2);
  CHECK(report.bad_images[1].problem.starts_with("JPEG: "));
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(report.bad_chunks[0].first_row == 2);
  CHECK(report.bad_chunks[0].last_row == 3);
  CHECK(Contains(report.bad_chunks[0].problem, "row 2: JPEG: the header says"));
  CHECK(report.bad_chunks[1].chunk == 2);
  CHECK(report.problems.empty());
}

TEST_CASE("a chunk that fails its checksum names the images whose own checksums fail") {
  TempFolder folder;
  const std::string path = folder / "flat.h5";
  WriteFlatFile(path, {{Raw(4, 5, 1), Raw(6, 2, 2)}, {Raw(3, 3, 3), Raw(5, 5, 4)}},
                StoredEncoding::Kind::kRaw);
  // Byte 10 of row 3, the second image of chunk 1 (after row 2's 27 bytes).
  testing::FlipByteInFile(path, Table(path)[1].address + 27 + 10);
  const VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  REQUIRE(report.bad_chunks.size() == 1);
  CHECK(report.bad_chunks[0].chunk == 1);
  CHECK(Contains(report.bad_chunks[0].problem, "checksum mismatch"));
  CHECK(Contains(report.bad_chunks[0].problem, "; row 3: checksum mismatch"));
  REQUIRE(report.bad_images.size() == 1);
  CHECK(report.bad_images[0].row == 3);
  CHECK(report.bad_images[0].chunk == 1);
  CHECK(report.bad_images[0].problem.starts_with("checksum mismatch (stored 0x"));
}

TEST_CASE("images stored otherwise than the encoding attribute says are a problem") {
  TempFolder folder;
  const std::string path = folder / "flat.h5";
  WriteFlatFile(path, {{Raw(4, 5, 1), Raw(6, 2, 2)}}, StoredEncoding::Kind::kRaw);
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\")\n"
                             "f.attrs[\"encoding\"] = \"jpeg:90\"\n"
                             "f.close()\n");
  const VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK(report.bad_chunks.empty());
  CHECK(Mentions(report.problems, "2 images are not stored as attribute encoding \"jpeg:90\""));
}

TEST_CASE("an h5py file is decoded, and the report says it has no checksums or table") {
  VerificationReport report = VerifyFile(testing::ForeignFile("nchw_gzip"), VerifyOptions{});
  CHECK(report.ok());
  CHECK_FALSE(report.is_h5feed);
  CHECK(report.chunks_checked == report.chunks);
  CHECK(Mentions(report.not_checked, "no checksums"));
  CHECK(Mentions(report.not_checked, "not written by h5feed"));
}

TEST_CASE("chunks an h5py script never wrote are listed as bad, not read as black images") {
  // An h5py script that failed half way through its images still closes the file cleanly:
  // chunks 2 and 3 have no storage, and HDF5 reads them as the fill value (0), which verify
  // used to pass as data ("OK: nothing wrong found in 4 chunks").
  TempFolder folder;
  const std::string path = folder / "half.h5";
  testing::RunPythonWithH5py(
      "import numpy as np\n"
      "with h5py.File(\"" +
      path +
      "\", \"w\") as f:\n"
      "    d = f.create_dataset(\"images\", shape=(20, 4, 4, 3), "
      "dtype=np.uint8, chunks=(5, 4, 4, 3))\n"
      "    for i in range(9):\n"
      "        d[i] = i + 1\n");
  const VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK(report.chunks_checked == 4);
  REQUIRE(report.bad_chunks.size() == 2);
  CHECK(report.bad_chunks[0].chunk == 2);
  CHECK(report.bad_chunks[0].first_row == 10);
  CHECK(report.bad_chunks[0].last_row == 14);
  CHECK(report.bad_chunks[1].chunk == 3);
  CHECK(Contains(report.bad_chunks[0].problem, "never written"));
  CHECK(Contains(report.bad_chunks[0].problem, "fill value (0 in every pixel)"));
}

TEST_CASE("a grayscale (N, H, W) h5py file is verified as the loader reads it") {
  const VerificationReport report = VerifyFile(testing::ForeignFile("grayscale"), VerifyOptions{});
  CHECK(report.ok());
  CHECK(report.samples == 25);
  CHECK(report.chunks_checked == 7);
}

TEST_CASE("a truncated file is damaged; a missing file cannot be judged") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK_FALSE(report.indexed);
  CHECK(Mentions(report.problems, "truncated"));
  CHECK(testing::CodeOf([&] { VerifyFile(folder / "absent.h5", VerifyOptions{}); }) ==
        ErrorCode::kNotFound);
}

TEST_CASE(
    "an HDF5 file without images is not judged; an h5feed file missing a dataset is damaged") {
  TempFolder folder;
  // Not an image file at all: nothing of one to judge, so refused as inspect, rechunk and the
  // Loader refuse it (as a file of float32 images is), not reported damaged.
  const std::string other = folder / "table.h5";
  testing::RunPythonWithH5py("f = h5py.File(\"" + other +
                             "\", \"w\"); f[\"x\"] = np.zeros((10, 3), np.float32); f.close()");
  std::string message;
  CHECK(testing::CodeOf([&] { VerifyFile(other); }, &message) == ErrorCode::kNotFound);
  CHECK(Contains(message, "no image dataset in " + other));
  CHECK(Contains(message, "/x float32 (10, 3)"));
  // An h5feed file without a dataset its writer always makes is damaged.
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, Compression::Parse("none"), 50, 8, kShape);
  testing::RunPythonWithH5py("f = h5py.File(\"" + path +
                             "\", \"r+\"); del f[\"chunk_index\"]; f.close()");
  const VerificationReport report = VerifyFile(path, VerifyOptions{});
  CHECK_FALSE(report.ok());
  CHECK_FALSE(report.indexed);
  CHECK(Mentions(report.problems, "/chunk_index"));
}

}  // namespace
}  // namespace h5feed::verify
