#include "h5feed/writer.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "codec/checksum.h"
#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "format/chunk_index_dataset.h"
#include "format/row_checksums_dataset.h"
#include "format/schema.h"
#include "format/values_checksum.h"
#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/attributes.h"
#include "hdf5/handle.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/strings.h"
#include "support/caught_error.h"
#include "support/one_shot_compress.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using Kind = Compression::Kind;
const ImageShape kShape{4, 5, 3};  // 60 bytes per image

// A version 1 file's options: `chunk_images` images of `shape` a chunk, the rest as defaulted
// (never replacing an output).
WriterOptions Options(const ImageShape& shape, int64_t chunk_images, Compression compression) {
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = chunk_images;
  options.compression = compression;
  return options;
}

// Image i, byte j: distinct across images and positions, never 0 (so padding is visible).
std::vector<uint8_t> Pixels(int64_t images, const ImageShape& shape = kShape) {
  std::vector<uint8_t> pixels(static_cast<size_t>(images * shape.bytes()));
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(1 + (j * 7) % 250);
  return pixels;
}

DatasetDescription Describe(int64_t images) {
  DatasetDescription d;
  for (int64_t i = 0; i < images; ++i) {
    d.labels.push_back(i % 3);
    d.sources.push_back("class" + std::to_string(i % 3) + "/img" + std::to_string(i) + ".jpg");
  }
  d.classes = {"cat", "dog", "émeu"};
  d.skipped = {{"cat/broken.jpg", "truncated JPEG"}, {"dog/empty.png", "empty file"}};
  d.source_kind = "imagefolder";
  d.shuffle_seed = 0xFEEDULL;
  return d;
}

void AppendAll(Writer& writer, const std::vector<uint8_t>& pixels, int64_t images) {
  const int64_t k = writer.chunk_images();
  const size_t image_bytes = static_cast<size_t>(writer.image_shape().bytes());
  for (int64_t first = 0; first < images; first += k) {
    int64_t count = std::min(k, images - first);
    std::span<const uint8_t> chunk(pixels.data() + first * image_bytes, count * image_bytes);
    writer.Append(writer.Encode(chunk, count));
  }
}

void WriteFile(const std::string& path, Compression compression, int64_t images,
               int64_t chunk_images = 4) {
  Writer writer = Writer::Create(path, Options(kShape, chunk_images, compression));
  AppendAll(writer, Pixels(images), images);
  writer.Finish(Describe(images));
}

using testing::CodeOf;

std::vector<uint8_t> Decode(Kind kind, const std::vector<uint8_t>& stored, size_t size) {
  std::vector<uint8_t> out(size);
  if (kind == Kind::kZstd) codec::ZstdDecompress(stored, out);
  if (kind == Kind::kDeflate) codec::DeflateDecompress(stored, out);
  if (kind == Kind::kNone) out = stored;
  return out;
}

TEST_CASE("a small file reads back with the shape, chunks, filter, data, table and attributes") {
  for (Compression compression :
       {Compression{Kind::kZstd, 3}, Compression{Kind::kDeflate, 6}, Compression{Kind::kNone, 0}}) {
    CAPTURE(compression.ToString());
    testing::TempFolder folder;
    const std::string path = folder / "out.h5";
    WriteFile(path, compression, 10);
    CHECK(folder.List() == std::vector<std::string>{"out.h5"});

    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    REQUIRE(file.valid());
    hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
    REQUIRE(images.valid());
    hdf5::Datatype type(H5Dget_type(images.get()));
    CHECK(H5Tequal(type.get(), H5T_STD_U8LE) > 0);
    hdf5::Dataspace space(H5Dget_space(images.get()));
    hsize_t dims[4], max_dims[4], chunk[4];
    REQUIRE(H5Sget_simple_extent_dims(space.get(), dims, max_dims) == 4);
    CHECK(std::vector<hsize_t>(dims, dims + 4) == std::vector<hsize_t>{10, 4, 5, 3});
    CHECK(max_dims[0] == H5S_UNLIMITED);
    hdf5::PropertyList create(H5Dget_create_plist(images.get()));
    REQUIRE(H5Pget_chunk(create.get(), 4, chunk) == 4);
    CHECK(std::vector<hsize_t>(chunk, chunk + 4) == std::vector<hsize_t>{4, 4, 5, 3});

    // The pipeline: zstd 32015 with cd_values {level}, HDF5's deflate, or nothing.
    int filters = H5Pget_nfilters(create.get());
    if (compression.kind == Kind::kNone) {
      CHECK(filters == 0);
    } else {
      REQUIRE(filters == 1);
      unsigned flags = 0, cd_values[4] = {}, config = 0;
      size_t cd_count = 4;
      H5Z_filter_t id =
          H5Pget_filter2(create.get(), 0, &flags, &cd_count, cd_values, 0, nullptr, &config);
      CHECK(id == (compression.kind == Kind::kZstd ? 32015 : H5Z_FILTER_DEFLATE));
      REQUIRE(cd_count == 1);
      CHECK(cd_values[0] == static_cast<unsigned>(compression.level));
    }

    // HDF5's own read path (its deflate, our registered zstd) gives back every pixel.
    std::vector<uint8_t> pixels(10 * 60);
    REQUIRE(H5Dread(images.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, pixels.data()) >=
            0);
    CHECK(pixels == Pixels(10));

    // The chunk table agrees with HDF5's index, with the bytes at each address, and with the
    // checksum of each chunk decompressed; the last chunk is zero-padded.
    std::vector<format::schema::ChunkRecord> table = format::ReadChunkIndex(file.get());
    REQUIRE(table.size() == 3);
    int fd = open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    for (size_t i = 0; i < table.size(); ++i) {
      CAPTURE(i);
      const hsize_t offset[4] = {i * 4, 0, 0, 0};
      unsigned mask = 99;
      haddr_t address = 0;
      hsize_t size = 0;
      REQUIRE(H5Dget_chunk_info_by_coord(images.get(), offset, &mask, &address, &size) >= 0);
      CHECK(table[i].address == address);
      CHECK(table[i].stored_bytes == size);
      CHECK(table[i].filter_mask == 0);
      CHECK(mask == 0);
      hsize_t enumerated_offset[4];
      REQUIRE(H5Dget_chunk_info(images.get(), space.get(), i, enumerated_offset, &mask, &address,
                                &size) >= 0);
      CHECK(table[i].address == address);

      std::vector<uint8_t> stored(size);
      uint32_t read_mask = 99;
      REQUIRE(H5Dread_chunk(images.get(), H5P_DEFAULT, offset, &read_mask, stored.data()) >= 0);
      std::vector<uint8_t> at_address(size);
      CHECK(pread(fd, at_address.data(), size, static_cast<off_t>(address)) ==
            static_cast<ssize_t>(size));
      CHECK(at_address == stored);
      std::vector<uint8_t> chunk_bytes = Decode(compression.kind, stored, 4 * 60);
      CHECK(codec::ChunkChecksum(chunk_bytes) == table[i].checksum);
      const size_t valid = (i < 2 ? 4 : 2) * 60;
      CHECK(std::equal(chunk_bytes.begin(), chunk_bytes.begin() + valid,
                       pixels.begin() + i * 4 * 60));
      CHECK(std::all_of(chunk_bytes.begin() + valid, chunk_bytes.end(),
                        [](uint8_t b) { return b == 0; }));
    }
    close(fd);
    CHECK(hdf5::ReadStringAttribute(
              hdf5::Dataset(H5Dopen2(file.get(), "chunk_index", H5P_DEFAULT)).get(), "checksum") ==
          "xxh3-64");

    // One checksum per image, of its bytes alone (padding is no image's).
    std::optional<std::vector<uint64_t>> rows = format::ReadRowChecksums(file.get(), 10);
    REQUIRE(rows);
    for (size_t i = 0; i < 10; ++i) {
      CHECK((*rows)[i] == codec::RowChecksum(std::span(pixels).subspan(i * 60, 60)));
    }
    CHECK(hdf5::ReadStringAttribute(
              hdf5::Dataset(H5Dopen2(file.get(), "row_checksums", H5P_DEFAULT)).get(),
              "checksum") == "xxh3-64");

    DatasetDescription d = Describe(10);
    hdf5::Dataset labels(H5Dopen2(file.get(), "labels", H5P_DEFAULT));
    hdf5::Datatype label_type(H5Dget_type(labels.get()));
    CHECK(H5Tequal(label_type.get(), H5T_STD_I64LE) > 0);
    std::vector<int64_t> read_labels(10);
    REQUIRE(H5Dread(labels.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    read_labels.data()) >= 0);
    CHECK(read_labels == d.labels);
    CHECK(hdf5::ReadStringDataset(file.get(), "classes") == d.classes);
    CHECK(hdf5::ReadStringDataset(file.get(), "sources") == d.sources);
    CHECK(hdf5::ReadStringDataset(file.get(), "skipped_sources") ==
          std::vector<std::string>{"cat/broken.jpg", "dog/empty.png"});
    CHECK(hdf5::ReadStringDataset(file.get(), "skipped_reasons") ==
          std::vector<std::string>{"truncated JPEG", "empty file"});

    const hid_t root = file.get();
    CHECK(hdf5::ReadStringAttribute(root, "h5feed_format") == "h5feed");
    CHECK(hdf5::ReadInt64Attribute(root, "h5feed_format_version") == 1);
    CHECK(hdf5::ReadStringAttribute(root, "layout") == "NHWC");
    CHECK(hdf5::ReadInt64Attribute(root, "num_images") == 10);
    CHECK(hdf5::ReadInt64Attribute(root, "num_classes") == 3);
    CHECK(hdf5::ReadInt64Attribute(root, "num_skipped") == 2);
    CHECK(hdf5::ReadInt64Attribute(root, "chunk_images") == 4);
    CHECK(hdf5::ReadStringAttribute(root, "compression") == compression.ToString());
    CHECK(hdf5::ReadInt64Attribute(root, "shuffled") == 1);
    CHECK(hdf5::ReadAttributeText(root, "shuffle_seed") == std::to_string(0xFEEDULL));
    CHECK(hdf5::ReadStringAttribute(root, "source_kind") == "imagefolder");
    CHECK(hdf5::ReadStringAttribute(root, "created_by").rfind("h5feed ", 0) == 0);
  }
}

TEST_CASE("the labels and every string list carry the XXH3-64 of their values") {
  testing::TempFolder folder;
  WriteFile(folder / "out.h5", Compression{}, 5);
  const DatasetDescription d = Describe(5);
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen((folder / "out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  // The bytes the format names: int64 little-endian labels; each string and a zero byte.
  std::vector<uint8_t> label_bytes;
  for (int64_t label : d.labels) {
    for (int b = 0; b < 8; ++b) label_bytes.push_back(static_cast<uint8_t>(label >> (8 * b)));
  }
  CHECK(format::StoredValuesChecksum(file.get(), "labels") == codec::ChunkChecksum(label_bytes));
  const std::string classes = std::string("cat") + '\0' + "dog" + '\0' + "émeu" + '\0';
  CHECK(format::StoredValuesChecksum(file.get(), "classes") ==
        codec::ChunkChecksum({reinterpret_cast<const uint8_t*>(classes.data()), classes.size()}));
  CHECK(format::StoredValuesChecksum(file.get(), "sources") == format::ValuesChecksum(d.sources));
  CHECK(format::ValuesMismatch(file.get(), "sources", d.sources).empty());
  std::vector<std::string> edited = d.sources;
  edited[3] = "elsewhere.png";
  CHECK(format::ValuesMismatch(file.get(), "sources", edited) ==
        "/sources do not match their checksum (xxh3_64)");
  CHECK(format::StoredValuesChecksum(file.get(), "skipped_reasons").has_value());
  CHECK_FALSE(format::StoredValuesChecksum(file.get(), "images").has_value());
  CHECK(format::ValuesChecksum(std::vector<std::string>{}) == 0x2D06800538D394C2ULL);
}

TEST_CASE("the file has HDF5's earliest object formats and keeps no freed space below a page") {
  testing::TempFolder folder;
  WriteFile(folder / "out.h5", Compression{}, 5);
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen((folder / "out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  // Version 1 object headers: /images' layout message predates any chunk index but the v1
  // B-tree.
  H5O_info_t images;
  REQUIRE(H5Oget_info_by_name2(file.get(), "images", &images, H5O_INFO_HDR, H5P_DEFAULT) >= 0);
  CHECK(images.hdr.version == 1);
  // The file-space setting (superblock version 2 records it): new chunks go to the file's end.
  H5F_info2_t info;
  REQUIRE(H5Fget_info2(file.get(), &info) >= 0);
  CHECK(info.super.version == 2);
  hdf5::PropertyList creation(H5Fget_create_plist(file.get()));
  H5F_fspace_strategy_t strategy{};
  hbool_t persist = true;
  hsize_t threshold = 0;
  REQUIRE(H5Pget_file_space_strategy(creation.get(), &strategy, &persist, &threshold) >= 0);
  CHECK(strategy == H5F_FSPACE_STRATEGY_FSM_AGGR);
  CHECK(threshold == 4096);
}

TEST_CASE("an existing output is refused without overwrite and replaced with it") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  std::ofstream(path) << "precious";
  WriterOptions options = Options(kShape, 4, Compression{});
  CHECK(CodeOf([&] { Writer::Create(path, options); }) == ErrorCode::kAlreadyExists);
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
  options.overwrite = true;
  Writer writer = Writer::Create(path, options);
  AppendAll(writer, Pixels(3), 3);
  writer.Finish(Describe(3));
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  CHECK(hdf5::ReadInt64Attribute(file.get(), "num_images") == 3);
}

TEST_CASE("CheckOutput refuses what Create refuses for the path, creating nothing") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  std::ofstream(path) << "precious";
  WriterOptions options = Options(kShape, 4, Compression{});
  options.option_names = [](std::string_view field) {
    return field == "overwrite" ? std::string("--force") : std::string();
  };
  CHECK_THROWS_WITH_AS(Writer::CheckOutput(path, options),
                       doctest::Contains("already exists and is left as it is; remove it or "
                                         "allow overwriting (--force)"),
                       Error);
  CHECK(CodeOf([&] { Writer::CheckOutput(path, options); }) == ErrorCode::kAlreadyExists);
  CHECK(CodeOf([&] { Writer::CheckOutput(folder / "none/out.h5", options); }) ==
        ErrorCode::kNotFound);
  CHECK(CodeOf([&] { Writer::CheckOutput(folder.path(), options); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { Writer::CheckOutput("", options); }) == ErrorCode::kInvalidArgument);
  options.overwrite = true;
  Writer::CheckOutput(path, options);
  Writer::CheckOutput(folder / "new.h5", options);
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
}

TEST_CASE("an output that is a FIFO or a device is never replaced, even with overwrite") {
  testing::TempFolder folder;
  const std::string fifo = folder / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::vector<std::string> specials = {fifo};
  // A stand-in for /dev/null (its device numbers), where this test may make one (as root).
  const std::string device = folder / "null";
  if (mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) specials.push_back(device);
  for (const std::string& path : specials) {
    CAPTURE(path);
    for (bool overwrite : {false, true}) {
      WriterOptions options = Options(kShape, 4, Compression{});
      options.overwrite = overwrite;
      CHECK_THROWS_WITH_AS(Writer::Create(path, options),
                           doctest::Contains("not a regular file, and is never replaced"), Error);
      CHECK(CodeOf([&] { Writer::Create(path, options); }) == ErrorCode::kInvalidArgument);
    }
  }
  struct stat status {};
  REQUIRE(lstat(fifo.c_str(), &status) == 0);
  CHECK(S_ISFIFO(status.st_mode));
  CHECK(folder.List().size() == specials.size());  // no temporary file left either
}

TEST_CASE("an output that appears during the conversion is not replaced") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  {
    Writer writer = Writer::Create(path, Options(kShape, 4, Compression{}));
    AppendAll(writer, Pixels(3), 3);
    std::ofstream(path) << "someone else's";
    CHECK(CodeOf([&] { writer.Finish(Describe(3)); }) == ErrorCode::kAlreadyExists);
  }
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
  std::ifstream in(path);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "someone else's");
}

TEST_CASE("a writer destroyed or abandoned before Finish leaves no file") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  {
    Writer writer = Writer::Create(path, Options(kShape, 4, Compression{}));
    AppendAll(writer, Pixels(6), 6);
    CHECK(writer.temporary_path() == folder / ".out.h5.partial-" + std::to_string(getpid()));
    CHECK(folder.List() == std::vector<std::string>{".out.h5.partial-" + std::to_string(getpid())});
  }
  CHECK(folder.List().empty());

  Writer writer = Writer::Create(path, Options(kShape, 4, Compression{}));
  writer.Abandon();
  writer.Abandon();
  CHECK(folder.List().empty());
  CHECK(CodeOf([&] { writer.Append(writer.Encode(Pixels(1), 1)); }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { writer.Finish(Describe(0)); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("creating a writer removes stale partial files of dead processes") {
  testing::TempFolder folder;
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  const std::string stale = ".out.h5.partial-" + std::to_string(child);
  std::ofstream(folder / stale) << "left by a crash";
  WriteFile(folder / "out.h5", Compression{}, 2);
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
}

// Restores the file-size limit and SIGXFSZ however the test ends.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    // Ignored, SIGXFSZ no longer kills the process: write() fails with EFBIG instead, the
    // errno a full file system's ENOSPC is handled with.
    saved_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, saved_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t saved_handler_ = SIG_DFL;
};

TEST_CASE("a full disk is reported as kNoSpace and leaves no file") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  const ImageShape shape{64, 64, 3};  // 12 KiB images, 192 KiB chunks of 16
  std::vector<uint8_t> chunk_pixels = Pixels(16, shape);
  Error caught(ErrorCode::kInternal, "nothing thrown");
  {
    FileSizeLimit limit(1 << 20);
    Writer writer = Writer::Create(path, Options(shape, 16, Compression{Kind::kNone, 0}));
    try {
      for (int i = 0; i < 100; ++i) writer.Append(writer.Encode(chunk_pixels, 16));
      DatasetDescription d;
      d.labels.assign(1600, 0);
      d.sources.assign(1600, "x");
      writer.Finish(d);
    } catch (const Error& error) {
      caught = error;
    }
  }
  CHECK(caught.code() == ErrorCode::kNoSpace);
  std::string message = caught.what();
  CAPTURE(message);
  CHECK(message.find("largest size") != std::string::npos);
  CHECK(message.find(".out.h5.partial-") != std::string::npos);
  CHECK(message.find("Raise the limit") != std::string::npos);
  CHECK(folder.List().empty());
}

TEST_CASE("Encode zero-pads a short chunk and checksums the padded bytes") {
  testing::TempFolder folder;
  Writer writer =
      Writer::Create(folder / "out.h5", Options(kShape, 4, Compression{Kind::kNone, 0}));
  std::vector<uint8_t> two = Pixels(2);
  EncodedChunk chunk = writer.Encode(two, 2);
  CHECK(chunk.images == 2);
  REQUIRE(chunk.bytes.size() == 4 * 60);
  CHECK(std::equal(two.begin(), two.end(), chunk.bytes.begin()));
  CHECK(std::all_of(chunk.bytes.begin() + 120, chunk.bytes.end(), [](uint8_t b) { return !b; }));
  CHECK(chunk.checksum == codec::ChunkChecksum(chunk.bytes));
  CHECK(chunk.image_checksums ==
        std::vector<uint64_t>{codec::RowChecksum(std::span(two).first(60)),
                              codec::RowChecksum(std::span(two).subspan(60, 60))});

  Writer zstd = Writer::Create(folder / "z.h5", Options(kShape, 4, Compression{Kind::kZstd, 3}));
  EncodedChunk compressed = zstd.Encode(two, 2);
  CHECK(compressed.checksum == chunk.checksum);
  CHECK(compressed.bytes == testing::ZstdCompress(chunk.bytes, 3));
}

TEST_CASE("EncodeInto stores what Encode stores, reusing memory; uncompressed, it swaps buffers") {
  testing::TempFolder folder;
  for (Compression compression :
       {Compression{Kind::kNone, 0}, Compression{Kind::kZstd, 3}, Compression{Kind::kDeflate, 6}}) {
    CAPTURE(compression.ToString());
    Writer writer =
        Writer::Create(folder / (compression.ToString() + ".h5"), Options(kShape, 4, compression));
    EncodedChunk into;
    for (int64_t images : {int64_t{4}, int64_t{4}, int64_t{3}}) {
      CAPTURE(images);
      std::vector<uint8_t> pixels = Pixels(images);
      std::reverse(pixels.begin(), pixels.end());  // unlike the last call's
      const EncodedChunk expected = writer.Encode(pixels, images);
      std::vector<uint8_t> chunk = pixels;
      chunk.reserve(4 * 60);  // room for the padding, as a converter's chunk buffer has
      const uint8_t* chunk_memory = chunk.data();
      const uint8_t* into_memory = into.bytes.data();
      writer.EncodeInto(chunk, images, into);
      CHECK(into.bytes == expected.bytes);
      CHECK(into.checksum == expected.checksum);
      CHECK(into.image_checksums == expected.image_checksums);
      CHECK(into.images == images);
      if (compression.kind == Kind::kNone) {
        CHECK(into.bytes.data() == chunk_memory);  // not copied: the caller's buffer, swapped
        CHECK(chunk.data() == into_memory);
      } else if (into_memory != nullptr) {
        CHECK(into.bytes.data() == into_memory);  // compressed into the memory it already had
      }
    }
    std::vector<uint8_t> wrong = Pixels(2);
    CHECK(CodeOf([&] { writer.EncodeInto(wrong, 3, into); }) == ErrorCode::kInvalidArgument);
  }
}

TEST_CASE("misuse is an invalid argument: wrong sizes, a chunk after a short one, bad labels") {
  testing::TempFolder folder;
  Writer writer = Writer::Create(folder / "out.h5", Options(kShape, 4, Compression{}));
  CHECK(CodeOf([&] { writer.Encode(Pixels(2), 3); }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { writer.Encode(Pixels(5), 5); }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { writer.Encode({}, 0); }) == ErrorCode::kInvalidArgument);
  EncodedChunk unchecked = writer.Encode(Pixels(4), 4);
  unchecked.image_checksums.pop_back();  // a chunk not made by Encode
  CHECK(CodeOf([&] { writer.Append(unchecked); }) == ErrorCode::kInvalidArgument);
  writer.Append(writer.Encode(Pixels(4), 4));
  writer.Append(writer.Encode(Pixels(3), 3));
  CHECK(CodeOf([&] { writer.Append(writer.Encode(Pixels(4), 4)); }) == ErrorCode::kInvalidArgument);
  DatasetDescription d = Describe(7);
  d.labels.pop_back();
  CHECK(CodeOf([&] { writer.Finish(d); }) == ErrorCode::kInvalidArgument);
  d = Describe(7);
  d.labels[5] = 3;  // 3 classes: 0..2
  CHECK(CodeOf([&] { writer.Finish(d); }) == ErrorCode::kInvalidArgument);
  writer.Finish(Describe(7));  // the writer is still usable after refused arguments
  CHECK(writer.images_written() == 7);
  CHECK(writer.chunks_written() == 2);
}

TEST_CASE("bad options are refused before any file is created") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  CHECK(CodeOf([&] {
          Writer::Create(path, Options({0, 5, 3}, 4, Compression{}));
        }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] { Writer::Create(path, Options(kShape, -1, Compression{})); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] {
          Writer::Create(path, Options(kShape, 4, Compression{Kind::kZstd, 40}));
        }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] {
          Writer::Create(path, Options({1 << 16, 1 << 16, 3}, 2, Compression{}));
        }) == ErrorCode::kInvalidArgument);
  CHECK(CodeOf([&] {
          Writer::Create(folder / "no/such/folder/out.h5", Options(kShape, 0, Compression{}));
        }) == ErrorCode::kNotFound);
  CHECK(CodeOf([&] { Writer::Create(folder.path(), Options(kShape, 0, Compression{})); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(folder.List().empty());
}

TEST_CASE("the default chunk holds about 4 MiB, at least one image and at most the dataset") {
  CHECK(DefaultChunkImages({224, 224, 3}) == 28);  // 4 MiB / 147 KiB = 27.9
  CHECK(DefaultChunkImages({32, 32, 3}) == 1365);  // CIFAR
  CHECK(DefaultChunkImages({4096, 4096, 3}) == 1);
  // Never more than the dataset holds: a chunk beyond it would be padding only.
  CHECK(DefaultChunkImages({32, 32, 3}, 100) == 100);
  CHECK(DefaultChunkImages({32, 32, 3}, 50000) == 1365);
  CHECK(DefaultChunkImages({4096, 4096, 3}, 10) == 1);
  testing::TempFolder folder;
  Writer writer = Writer::Create(folder / "out.h5", Options({224, 224, 3}, 0, Compression{}));
  CHECK(writer.chunk_images() == 28);
}

TEST_CASE("chunks encoded on several threads at once append in order and read back") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  const int64_t images = 103;
  std::vector<uint8_t> pixels = Pixels(images);
  Writer writer = Writer::Create(path, Options(kShape, 4, Compression{Kind::kZstd, 5}));
  std::vector<EncodedChunk> chunks(26);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t c = static_cast<size_t>(t); c < chunks.size(); c += 4) {
        int64_t count = std::min<int64_t>(4, images - static_cast<int64_t>(c) * 4);
        chunks[c] = writer.Encode(std::span(pixels).subspan(c * 4 * 60, count * 60), count);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const EncodedChunk& chunk : chunks) writer.Append(chunk);
  writer.Finish(Describe(images));

  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hdf5::Dataset dataset(H5Dopen2(file.get(), "images", H5P_DEFAULT));
  std::vector<uint8_t> read(pixels.size());
  REQUIRE(H5Dread(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, read.data()) >=
          0);
  CHECK(read == pixels);
}

TEST_CASE("a conversion of no images finishes with empty datasets") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  Writer writer = Writer::Create(path, Options(kShape, 4, Compression{}));
  DatasetDescription d;
  d.source_kind = "npy";
  writer.Finish(d);
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  CHECK(format::ReadChunkIndex(file.get()).empty());
  CHECK(format::ReadRowChecksums(file.get(), 0) == std::vector<uint64_t>{});
  CHECK(hdf5::ReadStringDataset(file.get(), "sources").empty());
  CHECK(hdf5::ReadStringDataset(file.get(), "classes").empty());
  CHECK(hdf5::ReadInt64Attribute(file.get(), "num_images") == 0);
  CHECK(hdf5::ReadInt64Attribute(file.get(), "shuffled") == 0);
  CHECK(hdf5::ReadAttributeText(file.get(), "shuffle_seed") == "0");
}

TEST_CASE("box classes are written as names and source ids, and only when given") {
  testing::TempFolder folder;
  for (const bool given : {true, false}) {
    const std::string path = folder / (given ? "coco.h5" : "plain.h5");
    Writer writer = Writer::Create(path, Options(kShape, 4, Compression{}));
    DatasetDescription d;
    d.source_kind = "coco";
    if (given) d.box_classes = {{"person", "car", "toothbrush"}, {1, 3, 90}};
    writer.Finish(d);
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    CHECK((H5Lexists(file.get(), "box_classes", H5P_DEFAULT) > 0) == given);
    CHECK((H5Lexists(file.get(), "box_class_ids", H5P_DEFAULT) > 0) == given);
    if (!given) continue;
    CHECK(hdf5::ReadStringDataset(file.get(), "box_classes") ==
          std::vector<std::string>{"person", "car", "toothbrush"});
    CHECK(hdf5::ReadIntegerDataset(file.get(), "box_class_ids", path) ==
          std::vector<int64_t>{1, 3, 90});
  }
  Writer writer = Writer::Create(folder / "uneven.h5", Options(kShape, 4, Compression{}));
  DatasetDescription d;
  d.box_classes = {{"person", "car"}, {1}};
  CHECK(CodeOf([&] { writer.Finish(d); }) == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace h5feed
