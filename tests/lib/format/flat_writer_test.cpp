// The Writer's version 2 ("flat") layout: images at their own size packed whole into chunks
// of C bytes (docs/format.md, "Images at their own size"). writer_test.cpp covers what both
// layouts share (the temporary file, the rename, a full disk).

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "codec/checksum.h"
#include "codec/zstd_codec.h"
#include "format/chunk_index_dataset.h"
#include "format/row_checksums_dataset.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/attributes.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::CodeOf;
constexpr int64_t kChunkBytes = 100;

// A raw image of h x w x 3, every byte nonzero (so a zero tail is visible) and distinct per seed.
std::vector<uint8_t> RawImage(int h, int w, int seed) {
  std::vector<uint8_t> pixels(static_cast<size_t>(h * w * 3));
  for (size_t j = 0; j < pixels.size(); ++j)
    pixels[j] = static_cast<uint8_t>(1 + (j + 31 * seed) % 250);
  return pixels;
}

StoredImage RawRecord(int h, int w) {
  return {h, w, 3, ImageEncoding::kRaw, static_cast<uint64_t>(h * w * 3), 0};
}

FlatLayout Layout(StoredEncoding::Kind kind = StoredEncoding::Kind::kRaw) {
  FlatLayout layout;
  layout.chunk_bytes = kChunkBytes;
  layout.max_side = 6;
  layout.encoding.kind = kind;
  layout.smart_threshold = 30;
  return layout;
}

WriterOptions FlatOptions(Compression compression, FlatLayout layout = Layout()) {
  WriterOptions options;
  options.compression = compression;
  options.flat = layout;
  return options;
}

DatasetDescription Describe(int64_t images) {
  DatasetDescription d;
  for (int64_t i = 0; i < images; ++i) {
    d.labels.push_back(i % 2);
    d.sources.push_back("c/" + std::to_string(i) + ".png");
  }
  d.classes = {"a", "b"};
  d.source_kind = "imagefolder";
  return d;
}

// Images of 4x5 (60 bytes), 2x3 (18), 5x6 (90), 1x1 (3), 3x3 (27): packed greedily into
// chunks of 100 bytes they make three chunks, {60, 18} {90, 3} {27}.
const std::vector<std::pair<int, int>> kSizes = {{4, 5}, {2, 3}, {5, 6}, {1, 1}, {3, 3}};
const std::vector<std::vector<size_t>> kChunks = {{0, 1}, {2, 3}, {4}};

void WriteFlatFile(const std::string& path, Compression compression) {
  Writer writer = Writer::Create(path, FlatOptions(compression));
  for (const std::vector<size_t>& rows : kChunks) {
    std::vector<uint8_t> chunk;
    std::vector<StoredImage> records;
    for (size_t row : rows) {
      const auto [h, w] = kSizes[row];
      const std::vector<uint8_t> image = RawImage(h, w, static_cast<int>(row));
      chunk.insert(chunk.end(), image.begin(), image.end());
      records.push_back(RawRecord(h, w));
    }
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, records, encoded);
    writer.Append(encoded);
  }
  writer.Finish(Describe(5));
}

template <typename T>
std::vector<T> ReadAll(hid_t file, const char* name, hid_t memory_type, size_t count) {
  hdf5::Dataset dataset(H5Dopen2(file, name, H5P_DEFAULT));
  REQUIRE(dataset.valid());
  std::vector<T> values(count);
  REQUIRE(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  return values;
}

TEST_CASE("a flat file packs whole images from each chunk's start, with zero tails") {
  for (Compression compression :
       {Compression{Compression::Kind::kZstd, 3}, Compression{Compression::Kind::kDeflate, 6},
        Compression{Compression::Kind::kNone, 0}}) {
    CAPTURE(compression.ToString());
    testing::TempFolder folder;
    const std::string path = folder / "flat.h5";
    WriteFlatFile(path, compression);
    CHECK(folder.List() == std::vector<std::string>{"flat.h5"});

    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    REQUIRE(file.valid());
    hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
    hdf5::Dataspace space(H5Dget_space(images.get()));
    hsize_t dims[1], max_dims[1], chunk[1];
    REQUIRE(H5Sget_simple_extent_dims(space.get(), dims, max_dims) == 1);
    CHECK(dims[0] == 3 * kChunkBytes);
    CHECK(max_dims[0] == H5S_UNLIMITED);
    hdf5::PropertyList create(H5Dget_create_plist(images.get()));
    REQUIRE(H5Pget_chunk(create.get(), 1, chunk) == 1);
    CHECK(chunk[0] == kChunkBytes);

    std::vector<uint8_t> bytes(3 * kChunkBytes);
    REQUIRE(H5Dread(images.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) >=
            0);
    const auto offsets = ReadAll<uint64_t>(file.get(), "image_offsets", H5T_NATIVE_UINT64, 5);
    const auto sizes = ReadAll<uint64_t>(file.get(), "image_bytes", H5T_NATIVE_UINT64, 5);
    const auto shapes = ReadAll<int32_t>(file.get(), "image_shapes", H5T_NATIVE_INT32, 15);
    const auto encodings = ReadAll<uint8_t>(file.get(), "image_encodings", H5T_NATIVE_UINT8, 5);
    CHECK(offsets == std::vector<uint64_t>{0, 60, 100, 190, 200});
    CHECK(sizes == std::vector<uint64_t>{60, 18, 90, 3, 27});
    CHECK(shapes == std::vector<int32_t>{4, 5, 3, 2, 3, 3, 5, 6, 3, 1, 1, 3, 3, 3, 3});
    CHECK(encodings == std::vector<uint8_t>(5, 0));
    for (size_t row = 0; row < 5; ++row) {
      const auto [h, w] = kSizes[row];
      CHECK(std::equal(bytes.begin() + offsets[row], bytes.begin() + offsets[row] + sizes[row],
                       RawImage(h, w, static_cast<int>(row)).begin()));
    }
    for (auto [from, to] : {std::pair{78, 100}, std::pair{193, 200}, std::pair{227, 300}}) {
      CHECK(
          std::all_of(bytes.begin() + from, bytes.begin() + to, [](uint8_t b) { return b == 0; }));
    }

    // The chunk table: one row per chunk, the checksum of its C bytes, zero tail included.
    std::vector<format::schema::ChunkRecord> table = format::ReadChunkIndex(file.get());
    REQUIRE(table.size() == 3);
    for (size_t c = 0; c < 3; ++c) {
      CHECK(table[c].checksum ==
            codec::ChunkChecksum(std::span(bytes).subspan(c * kChunkBytes, kChunkBytes)));
    }
    // A row checksum is XXH3-64 of the image's stored bytes.
    std::optional<std::vector<uint64_t>> rows = format::ReadRowChecksums(file.get(), 5);
    REQUIRE(rows);
    for (size_t row = 0; row < 5; ++row) {
      CHECK((*rows)[row] == codec::RowChecksum(std::span(bytes).subspan(offsets[row], sizes[row])));
    }
  }
}

TEST_CASE("a flat file's root attributes say version 2, layout flat, C, the cap and encoding") {
  for (StoredEncoding::Kind kind : {StoredEncoding::Kind::kRaw, StoredEncoding::Kind::kSmart}) {
    testing::TempFolder folder;
    const std::string path = folder / "flat.h5";
    {
      Writer writer = Writer::Create(path, FlatOptions(Compression{}, Layout(kind)));
      CHECK(writer.flat());
      CHECK(writer.chunk_bytes() == kChunkBytes);
      CHECK(writer.chunk_images() == 0);
      std::vector<uint8_t> chunk = RawImage(2, 3, 0);  // 18 bytes: raw under smart's 30 too
      EncodedChunk encoded;
      writer.EncodePackedInto(chunk, {RawRecord(2, 3)}, encoded);
      writer.Append(encoded);
      writer.Finish(Describe(1));
    }
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const hid_t root = file.get();
    CHECK(hdf5::ReadInt64Attribute(root, "h5feed_format_version") == 2);
    CHECK(hdf5::ReadStringAttribute(root, "layout") == "flat");
    CHECK(hdf5::ReadInt64Attribute(root, "chunk_bytes") == kChunkBytes);
    CHECK(hdf5::ReadInt64Attribute(root, "max_side") == 6);
    CHECK(hdf5::ReadInt64Attribute(root, "num_images") == 1);
    CHECK(!hdf5::HasAttribute(root, "chunk_images"));
    if (kind == StoredEncoding::Kind::kSmart) {
      CHECK(hdf5::ReadStringAttribute(root, "encoding") == "smart:90");
      CHECK(hdf5::ReadInt64Attribute(root, "smart_threshold") == 30);
    } else {
      CHECK(hdf5::ReadStringAttribute(root, "encoding") == "raw");
      CHECK(!hdf5::HasAttribute(root, "smart_threshold"));
    }
    CHECK(hdf5::ReadStringAttribute(root, "h5feed_format") == "h5feed");
  }
}

TEST_CASE("a flat writer refuses what its layout does not allow and stays usable") {
  testing::TempFolder folder;
  Writer writer = Writer::Create(folder / "flat.h5", FlatOptions(Compression{}));
  EncodedChunk encoded;
  auto encode = [&](std::vector<uint8_t> chunk, std::vector<StoredImage> records) {
    return CodeOf([&] { writer.EncodePackedInto(chunk, records, encoded); });
  };
  CHECK(encode({}, {}) == ErrorCode::kInvalidArgument);                                // no image
  CHECK(encode(RawImage(2, 3, 0), {RawRecord(2, 2)}) == ErrorCode::kInvalidArgument);  // sizes
  StoredImage wrong_bytes = RawRecord(2, 3);
  wrong_bytes.bytes = 17;
  CHECK(encode(std::vector<uint8_t>(17, 1), {wrong_bytes}) == ErrorCode::kInvalidArgument);
  CHECK(encode(RawImage(1, 7, 0), {RawRecord(1, 7)}) == ErrorCode::kInvalidArgument);  // > max_side
  StoredImage jpeg = {2, 2, 3, ImageEncoding::kJpeg, 10, 0};  // a JPEG in a raw file
  CHECK(encode(std::vector<uint8_t>(10, 1), {jpeg}) == ErrorCode::kInvalidArgument);
  std::vector<uint8_t> too_much = RawImage(5, 6, 0);  // 90 + 27 > 100
  const std::vector<uint8_t> more = RawImage(3, 3, 0);
  too_much.insert(too_much.end(), more.begin(), more.end());
  CHECK(encode(too_much, {RawRecord(5, 6), RawRecord(3, 3)}) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { writer.Encode(RawImage(2, 3, 0), 1); }) == ErrorCode::kInvalidArgument);
  EncodedChunk empty;
  CHECK(CodeOf([&] { writer.Append(empty); }) == ErrorCode::kInvalidArgument);

  std::vector<uint8_t> good = RawImage(2, 3, 0);
  writer.EncodePackedInto(good, {RawRecord(2, 3)}, encoded);
  writer.Append(encoded);
  writer.Finish(Describe(1));
  CHECK(writer.images_written() == 1);
}

TEST_CASE("smart files take JPEG exactly above the threshold, raw at or below it") {
  testing::TempFolder folder;
  Writer writer = Writer::Create(folder / "smart.h5",
                                 FlatOptions(Compression{}, Layout(StoredEncoding::Kind::kSmart)));
  EncodedChunk encoded;
  std::vector<uint8_t> chunk = RawImage(2, 5, 0);  // 30 bytes: not above 30, so raw
  CHECK_NOTHROW(writer.EncodePackedInto(chunk, {RawRecord(2, 5)}, encoded));
  chunk = RawImage(3, 4, 0);  // 36 bytes: must be JPEG
  CHECK(CodeOf([&] { writer.EncodePackedInto(chunk, {RawRecord(3, 4)}, encoded); }) ==
        ErrorCode::kInvalidArgument);
  chunk.assign(20, 7);
  CHECK_NOTHROW(writer.EncodePackedInto(chunk, {{3, 4, 3, ImageEncoding::kJpeg, 20, 0}}, encoded));
}

TEST_CASE("a flat writer destroyed before Finish leaves no file; bad layouts create none") {
  testing::TempFolder folder;
  {
    Writer writer = Writer::Create(folder / "flat.h5", FlatOptions(Compression{}));
    std::vector<uint8_t> chunk = RawImage(2, 3, 0);
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, {RawRecord(2, 3)}, encoded);
    writer.Append(encoded);
    CHECK(folder.List().size() == 1);
  }
  CHECK(folder.List().empty());
  FlatLayout layout = Layout();
  layout.chunk_bytes = int64_t{1} << 32;
  CHECK(CodeOf([&] { Writer::Create(folder / "x.h5", FlatOptions(Compression{}, layout)); }) ==
        ErrorCode::kInvalidArgument);
  layout = Layout(StoredEncoding::Kind::kJpeg);
  layout.encoding.quality = 0;
  CHECK(CodeOf([&] { Writer::Create(folder / "x.h5", FlatOptions(Compression{}, layout)); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(folder.List().empty());
}

TEST_CASE("encodings parse as raw, jpeg[:Q] and smart[:Q], and print back") {
  CHECK(StoredEncoding::Parse("raw").ToString() == "raw");
  CHECK(StoredEncoding::Parse("jpeg").ToString() == "jpeg:90");
  CHECK(StoredEncoding::Parse("jpeg:75").quality == 75);
  CHECK(StoredEncoding::Parse("smart:100").ToString() == "smart:100");
  for (const char* bad :
       {"", "png", "raw:5", "jpeg:", "jpeg:0", "jpeg:101", "jpeg:9x", "smart:-1"}) {
    CAPTURE(bad);
    CHECK(CodeOf([&] { StoredEncoding::Parse(bad); }) == ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace h5feed
