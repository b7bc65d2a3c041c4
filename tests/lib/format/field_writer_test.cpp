// The Writer's fields (docs/format.md, "Fields"): what Create, AppendFields and Finish refuse,
// a file without labels, the chunk rows of each layout, and rows written as their chunk fills.
// test_h5py_reads_fields.py checks what h5py reads of them; tests/lib/index/field_index_test.cpp
// what h5feed reads.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "field_test_columns.h"
#include "format/field_writer.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/attributes.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::CaughtError;
const ImageShape kShape{2, 2, 3};

WriterOptions Options(std::vector<FieldSpec> fields, int64_t chunk_images = 4) {
  WriterOptions options;
  options.image_shape = kShape;
  options.chunk_images = chunk_images;
  options.compression = Compression{Compression::Kind::kNone, 0};
  options.fields = std::move(fields);
  return options;
}

void AppendImages(Writer& writer, int64_t images) {
  const int64_t k = writer.chunk_images();
  for (int64_t first = 0; first < images; first += k) {
    const int64_t count = std::min(k, images - first);
    std::vector<uint8_t> pixels(static_cast<size_t>(count * kShape.bytes()), 7);
    writer.Append(writer.Encode(pixels, count));
  }
}

DatasetDescription Describe(int64_t images, bool labelled = true) {
  DatasetDescription d;
  for (int64_t i = 0; i < images; ++i) {
    if (labelled) d.labels.push_back(0);
    d.sources.push_back("img" + std::to_string(i));
  }
  if (labelled) d.classes = {"only"};
  d.source_kind = "npy";
  return d;
}

FieldColumn Rows(std::vector<std::string> values) {
  FieldColumn column;
  for (const std::string& value : values) {
    column.Append({reinterpret_cast<const uint8_t*>(value.data()), value.size()});
  }
  return column;
}

const FieldSpec kAttrs{"attrs", FieldKind::kArray, FieldType::kUint8, {4}, {}};
const FieldSpec kCaption{"caption", FieldKind::kText, FieldType::kUint8, {}, {}};

TEST_CASE("a reserved, repeated or malformed field is refused at Create, before any file") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  const Error reserved = CaughtError([&] {
    Writer::Create(path, Options({{"images", FieldKind::kArray, FieldType::kUint8, {1}, {}}}));
  });
  CHECK(reserved.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(reserved.what()).find("\"images\"") != std::string::npos);
  CHECK(std::string(reserved.what()).find("Reserved: images, labels") != std::string::npos);
  const Error twice = CaughtError([&] { Writer::Create(path, Options({kAttrs, kAttrs})); });
  CHECK(twice.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(twice.what()).find("two fields are named \"attrs\"") != std::string::npos);
  CHECK(CaughtError([&] {
          Writer::Create(path, Options({{"e", FieldKind::kArray, FieldType::kInt8, {3, 0}, {}}}));
        }).code() == ErrorCode::kInvalidArgument);
  CHECK(CaughtError([&] {
          Writer::Create(path, Options({{"a/b", FieldKind::kText, FieldType::kUint8, {}, {}}}));
        }).code() == ErrorCode::kInvalidArgument);
  // A chunk of K rows of a 2 GiB row passes 4 GiB, which HDF5 cannot store.
  const Error too_large = CaughtError([&] {
    Writer::Create(
        path, Options({{"big", FieldKind::kArray, FieldType::kUint8, {int64_t{1} << 31}, {}}}));
  });
  CHECK(std::string(too_large.what()).find("use fewer images per chunk") != std::string::npos);
  // A loader's batch gives the counts of boxes field "obj" under "obj_count".
  const Error counts = CaughtError([&] {
    Writer::Create(path, Options({{"obj", FieldKind::kBoxes, FieldType::kFloat32, {}, {}},
                                  {"obj_count", FieldKind::kArray, FieldType::kInt64, {}, {}}}));
  });
  CHECK(counts.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(counts.what()).find("obj_count would hide the counts of boxes field obj") !=
        std::string::npos);
  CHECK(folder.List().empty());
}

TEST_CASE("AppendFields refuses columns it cannot write, naming the field and the row") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  Writer writer = Writer::Create(path, Options({kAttrs, kCaption}));
  const FieldColumn attrs = Rows({"abcd", "efgh", "ijkl"});
  writer.AppendFields(std::vector<FieldColumn>{attrs, Rows({"a", "", "é"})});
  CHECK(writer.field_rows_written() == 3);

  auto refused = [&](std::vector<FieldColumn> columns) {
    const Error error = CaughtError([&] { writer.AppendFields(columns); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return std::string(error.what());
  };
  CHECK(refused({attrs}).find("got 1 columns for its 2 fields") != std::string::npos);
  CHECK(refused({attrs, Rows({"a"})}).find("field caption got 1 rows and field attrs 3") !=
        std::string::npos);
  CHECK(refused({Rows({"abcd", "abc"}), Rows({"x", "y"})})
            .find("row 4 of field attrs (uint8[4]) in " + path + " is 3 bytes, not the 4") !=
        std::string::npos);
  CHECK(refused({Rows({"abcd"}), Rows({"\xC3\x28"})})
            .find("row 3 of field caption (text) in " + path + " is not valid UTF-8 (byte 0)") !=
        std::string::npos);
  CHECK(
      refused({Rows({"abcd"}), Rows({std::string("a\0b", 3)})}).find("holds a NUL byte (byte 1)") !=
      std::string::npos);
  {  // bool elements are 0 or 1
    const FieldSpec flags{"flags", FieldKind::kArray, FieldType::kBool, {2}, {}};
    Writer with_flags = Writer::Create(folder / "flags.h5", Options({flags}));
    const Error bool_value = CaughtError([&] {
      with_flags.AppendFields(
          std::vector<FieldColumn>{Rows({std::string("\x01\x00", 2), std::string("\x00\x02", 2)})});
    });
    CHECK(std::string(bool_value.what()).find("row 1 of field flags (bool[2])") !=
          std::string::npos);
    CHECK(std::string(bool_value.what()).find("holds 2 at element 1; a bool is 0 or 1") !=
          std::string::npos);
  }
  // Nothing of a refused call was taken, and the writer goes on.
  CHECK(writer.field_rows_written() == 3);
  AppendImages(writer, 4);
  writer.AppendFields(std::vector<FieldColumn>{Rows({"mnop"}), Rows({"d"})});
  writer.Finish(Describe(4));
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
}

TEST_CASE("Finish refuses fields without a row per image; a writer abandoned leaves no file") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  {
    Writer writer = Writer::Create(path, Options({kAttrs, kCaption}));
    AppendImages(writer, 5);
    writer.AppendFields(std::vector<FieldColumn>{Rows({"abcd", "efgh", "ijkl", "mnop"}),
                                                 Rows({"1", "2", "3", "4"})});
    const Error missing = CaughtError([&] { writer.Finish(Describe(5)); });
    CHECK(missing.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(missing.what()).find("got 4 rows for 5 images written") != std::string::npos);
    CHECK(folder.List().size() == 1);  // the temporary file, still being written
    // The writer is still usable: the missing row completes it.
    writer.AppendFields(std::vector<FieldColumn>{Rows({"qrst"}), Rows({"5"})});
    writer.Finish(Describe(5));
  }
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
  {
    Writer writer = Writer::Create(folder / "abandoned.h5", Options({kAttrs}));
    AppendImages(writer, 8);
    writer.AppendFields(std::vector<FieldColumn>{testing::TestFieldColumns({kAttrs}, 0, 8)[0]});
  }
  CHECK(folder.List() == std::vector<std::string>{"out.h5"});
}

TEST_CASE("a writer without labels writes no labels and no classes, and says so") {
  testing::TempFolder folder;
  const std::string path = folder / "unlabelled.h5";
  WriterOptions options = Options({});
  options.labelled = false;
  Writer writer = Writer::Create(path, options);
  AppendImages(writer, 6);
  const Error labels = CaughtError([&] { writer.Finish(Describe(6, true)); });
  CHECK(labels.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(labels.what()).find("WriterOptions::labelled is false") != std::string::npos);
  writer.Finish(Describe(6, false));

  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(file.valid());
  CHECK(H5Lexists(file.get(), "labels", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(file.get(), "classes", H5P_DEFAULT) > 0);
  CHECK(hdf5::ReadInt64Attribute(file.get(), "labelled") == 0);
  CHECK(hdf5::ReadInt64Attribute(file.get(), "num_classes") == 0);
  CHECK(!hdf5::HasAttribute(file.get(), "fields"));
}

TEST_CASE("a field's chunk holds K rows, or in a flat file about 1 MiB or 4096 rows, at most N") {
  const FieldSpec floats{"f", FieldKind::kArray, FieldType::kFloat32, {3}, {}};  // 12 bytes a row
  CHECK(format::FieldChunkRows(floats, 28, 5) == 28);  // version 1: in step with the images
  CHECK(format::FieldChunkRows(floats, 0, 1'000'000) == 87381);  // round(1 MiB / 12)
  CHECK(format::FieldChunkRows(floats, 0, 10) == 10);
  CHECK(format::FieldChunkRows(floats, 0, 0) == 1);
  const FieldSpec huge{"h", FieldKind::kArray, FieldType::kUint8, {int64_t{4} << 20}, {}};
  CHECK(format::FieldChunkRows(huge, 0, 100) == 1);
  CHECK(format::FieldChunkRows(kCaption, 0, 1'000'000) == 4096);
  CHECK(format::FieldChunkRows(kCaption, 0, 7) == 7);

  // A flat file of three images: each field's dataset is chunked by its rule with N = 3.
  testing::TempFolder folder;
  const std::string path = folder / "flat.h5";
  WriterOptions options = Options({floats, kCaption});
  options.flat = FlatLayout{};
  options.flat->chunk_bytes = 100;
  Writer writer = Writer::Create(path, options);
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t> chunk(12, static_cast<uint8_t>(i + 1));
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, {{2, 2, 3, ImageEncoding::kRaw, 12, 0}}, encoded);
    writer.Append(encoded);
  }
  writer.AppendFields(testing::TestFieldColumns({floats, kCaption}, 0, 3));
  writer.Finish(Describe(3));
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  for (const char* name : {"f", "caption"}) {
    CAPTURE(name);
    hdf5::Dataset dataset(H5Dopen2(file.get(), name, H5P_DEFAULT));
    hdf5::PropertyList create(H5Dget_create_plist(dataset.get()));
    hsize_t chunk[2] = {};
    REQUIRE(H5Pget_chunk(create.get(), 2, chunk) >= 1);
    CHECK(chunk[0] == 3);
  }
}

TEST_CASE("a field's rows reach the file as each chunk fills: the writer holds at most one") {
  // 64 rows of 1 KiB a chunk, appended 7 rows a call: after every call the temporary file
  // holds every whole chunk given so far (HDF5's chunk cache is off for fields).
  testing::TempFolder folder;
  const FieldSpec wide{"wide", FieldKind::kArray, FieldType::kUint8, {1024}, {}};
  Writer writer = Writer::Create(folder / "wide.h5", Options({wide}, 64));
  const int64_t rows = 64 * 40;
  AppendImages(writer, rows);
  struct stat before {};
  REQUIRE(stat(writer.temporary_path().c_str(), &before) == 0);
  for (int64_t first = 0; first < rows; first += 7) {
    const int64_t count = std::min<int64_t>(7, rows - first);
    writer.AppendFields(testing::TestFieldColumns({wide}, first, count));
    const int64_t whole_chunks = (first + count) / 64;
    struct stat now {};
    REQUIRE(stat(writer.temporary_path().c_str(), &now) == 0);
    CAPTURE(first);
    CHECK(now.st_size >= before.st_size + whole_chunks * 64 * 1024);
  }
  writer.Finish(Describe(rows));
}

TEST_CASE("a bytes field's values reach the file once they pass 8 MiB, before their chunk fills") {
  // 256 rows a chunk of 1 MiB values, one row a call: the writer holds no more than 8 MiB of
  // them (HDF5 then holds up to its metadata cache's 32 MiB of heap collections not yet in the
  // file), and the rows it wrote early read back as given.
  testing::TempFolder folder;
  const FieldSpec blob{"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}};
  const std::string path = folder / "blob.h5";
  Writer writer = Writer::Create(path, Options({blob}, 256));
  const int64_t rows = 160;
  const size_t value_bytes = size_t{1} << 20;
  AppendImages(writer, rows);
  struct stat before {};
  REQUIRE(stat(writer.temporary_path().c_str(), &before) == 0);
  for (int64_t row = 0; row < rows; ++row) {
    const std::vector<FieldColumn> columns = {
        Rows({std::string(value_bytes, static_cast<char>('a' + row % 26))})};
    writer.AppendFields(columns);
    struct stat now {};
    REQUIRE(stat(writer.temporary_path().c_str(), &now) == 0);
    CAPTURE(row);
    const int64_t held_at_most = 8 + 32;
    CHECK(now.st_size + static_cast<int64_t>(value_bytes) * held_at_most >=
          before.st_size + (row + 1) * static_cast<int64_t>(value_bytes));
  }
  writer.Finish(Describe(rows));

  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hdf5::Dataset dataset(H5Dopen2(file.get(), "blob", H5P_DEFAULT));
  hdf5::Dataspace space(H5Dget_space(dataset.get()));
  hsize_t extent[1] = {};
  REQUIRE(H5Sget_simple_extent_dims(space.get(), extent, nullptr) == 1);
  CHECK(extent[0] == static_cast<hsize_t>(rows));
  hdf5::Datatype type(H5Tvlen_create(H5T_NATIVE_UINT8));
  std::vector<hvl_t> values(static_cast<size_t>(rows));
  REQUIRE(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  for (int64_t row = 0; row < rows; ++row) {
    const hvl_t& value = values[static_cast<size_t>(row)];
    CAPTURE(row);
    REQUIRE(value.len == value_bytes);
    const auto* bytes = static_cast<const uint8_t*>(value.p);
    CHECK(bytes[0] == 'a' + row % 26);
    CHECK(bytes[value_bytes - 1] == 'a' + row % 26);
  }
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, values.data());
}

TEST_CASE("masks, boxes and box labels are checked as they are written") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  const FieldSpec mask{"mask", FieldKind::kMask, FieldType::kUint8, {2, 2}, {}};
  const FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  FieldSpec labels{"box_labels", FieldKind::kBoxLabels, FieldType::kInt64, {}, {}};
  labels.boxes = "boxes";

  auto create_refused = [&](std::vector<FieldSpec> fields) {
    const Error error = CaughtError([&] { Writer::Create(path, Options(fields)); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return std::string(error.what());
  };
  FieldSpec wide = mask;
  wide.shape = {2, 3};
  CHECK(create_refused({wide}).find("a mask has the images' height and width (2x2)") !=
        std::string::npos);
  FieldSpec signed_mask = mask;
  signed_mask.type = FieldType::kInt8;
  CHECK(create_refused({signed_mask}).find("a mask is uint8 (or uint16") != std::string::npos);
  CHECK(create_refused({labels}).find("which is not a boxes field of this file") !=
        std::string::npos);

  Writer writer = Writer::Create(path, Options({mask, boxes, labels}));
  const float box[4] = {0.5f, 0.5f, 1.5f, 2.0f};
  const int64_t label = 7;
  auto column = [](std::vector<std::span<const uint8_t>> rows) {
    FieldColumn result;
    for (auto row : rows) result.Append(row);
    return result;
  };
  const auto bytes = [](const auto& value) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(value));
  };
  const uint8_t pixels[4] = {0, 1, 2, 3};
  const FieldColumn masks = column({pixels});
  writer.AppendFields(
      std::vector<FieldColumn>{masks, column({bytes(box)}), column({bytes(label)})});
  auto refused = [&](std::vector<FieldColumn> columns) {
    const Error error = CaughtError([&] { writer.AppendFields(columns); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return std::string(error.what());
  };
  CHECK(refused({masks, column({bytes(box)}), column({{}})})
            .find("row 1 of field box_labels in " + path + " has 0 labels for the 1 boxes") !=
        std::string::npos);
  CHECK(refused({masks, column({bytes(box).first(12)}), column({{}})})
            .find("is 12 bytes, not a whole number of 16-byte") != std::string::npos);
  CHECK(refused({column({std::span(pixels).first(3)}), column({{}}), column({{}})})
            .find("is 3 bytes, not the 4 of mask uint8[2,2]") != std::string::npos);
  CHECK(writer.field_rows_written() == 1);  // a refused call takes nothing
}

TEST_CASE("box values are checked against their boxes' count and name them and their type") {
  testing::TempFolder folder;
  const std::string path = folder / "out.h5";
  const FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  const FieldSpec area{"area", FieldKind::kBoxValues, FieldType::kFloat32, {}, "boxes"};
  const Error orphan = CaughtError([&] { Writer::Create(path, Options({area})); });
  CHECK(std::string(orphan.what())
            .find("area (box_values float32 of boxes) belongs to the "
                  "boxes of field boxes, which is not a boxes field") != std::string::npos);

  Writer writer = Writer::Create(path, Options({boxes, area}));
  const float box[4] = {0.5f, 0.5f, 1.5f, 2.0f};
  const float two_areas[2] = {1.5f, 3.0f};
  const auto bytes = [](const auto& value) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(value));
  };
  const auto column = [](std::vector<std::span<const uint8_t>> rows) {
    FieldColumn result;
    for (auto row : rows) result.Append(row);
    return result;
  };
  // Row 0 one box and its area, row 1 none (K = 0: an empty row of each).
  writer.AppendFields(
      std::vector<FieldColumn>{column({bytes(box), {}}), column({bytes(two_areas).first(4), {}})});
  const auto refused = [&](std::vector<FieldColumn> columns) {
    const Error error = CaughtError([&] { writer.AppendFields(columns); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return std::string(error.what());
  };
  CHECK(refused({column({bytes(box)}), column({bytes(two_areas)})})
            .find("row 2 of field area in " + path +
                  " has 2 values for the 1 boxes of field "
                  "boxes") != std::string::npos);
  CHECK(refused({column({bytes(box)}), column({bytes(two_areas).first(3)})})
            .find("is 3 bytes, not a whole number of 4-byte") != std::string::npos);
  CHECK(writer.field_rows_written() == 2);  // a refused call takes nothing
  AppendImages(writer, 2);
  writer.Finish(Describe(2));

  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(file.valid());
  hdf5::Dataset dataset(H5Dopen2(file.get(), "area", H5P_DEFAULT));
  REQUIRE(dataset.valid());
  CHECK(hdf5::ReadStringAttribute(dataset.get(), "h5feed_field") == "box_values");
  CHECK(hdf5::ReadStringAttribute(dataset.get(), "h5feed_boxes") == "boxes");
  CHECK(hdf5::ReadStringAttribute(dataset.get(), "h5feed_box_value_type") == "float32");
}

TEST_CASE("boxes normalized to 0-1 are refused on an image of 4 pixels a side, naming the row") {
  testing::TempFolder folder;
  const FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  auto row = [](const std::vector<float>& values) {
    FieldColumn column;
    column.Append({reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4});
    return std::vector<FieldColumn>{column};
  };
  const std::vector<float> normalized = {0, 0, 0, 0, 0.1f, 0.25f, 0.5f, 0.75f};
  const std::string problem =
      "has every box within 0 to 1 (box 1 is [0.1, 0.25, 0.5, 0.75]), but its image is 6 x 5 "
      "(height x width): boxes normalized to the image's size would be stored as boxes under a "
      "pixel, which the loader drops; give x1, y1, x2, y2 in the image's pixels (normalized "
      "boxes times [width, height, width, height])";

  SUBCASE("a file of one image size knows every row's image, ahead of it too") {
    const std::string path = folder / "fixed.h5";
    WriterOptions options = Options({boxes}, 2);
    options.image_shape = {6, 5, 3};
    Writer writer = Writer::Create(path, options);
    writer.AppendFields(row({0, 0, 0, 0}));        // a placeholder: no area
    writer.AppendFields(row({0.5f, 0, 1, 1.5f}));  // past 1: pixels
    writer.AppendFields(row({2.5f, 1, 4, 6, 0, 0, 1, 1}));
    const Error error = CaughtError([&] { writer.AppendFields(row(normalized)); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()) == "row 3 of field boxes (boxes) in " + path + " " + problem);
    CHECK(writer.field_rows_written() == 3);  // refused before anything was taken
  }

  SUBCASE("a flat file checks boxes given ahead of their image when the image comes") {
    const std::string path = folder / "flat.h5";
    WriterOptions options = Options({boxes});
    options.flat = FlatLayout{};
    Writer writer = Writer::Create(path, options);
    auto append_images = [&](std::vector<std::pair<int32_t, int32_t>> sizes) {
      std::vector<uint8_t> chunk;
      std::vector<StoredImage> records;
      for (const auto& [height, width] : sizes) {
        const auto bytes = static_cast<uint64_t>(height * width * 3);
        chunk.insert(chunk.end(), bytes, 9);
        records.push_back({height, width, 3, ImageEncoding::kRaw, bytes, 0});
      }
      EncodedChunk encoded;
      writer.EncodePackedInto(chunk, records, encoded);
      writer.Append(encoded);
    };
    // Row 0 on a 3 x 3 image, where 0-1 may be pixels: kept. Row 1 ahead of its 6 x 5 image.
    writer.AppendFields(row(normalized));
    writer.AppendFields(row(normalized));
    append_images({{3, 3}});
    const Error ahead = CaughtError([&] { append_images({{6, 5}}); });
    CHECK(ahead.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(ahead.what()) ==
          "row 1 of field boxes (boxes) in " + path + ", appended ahead of its image, " + problem);
    CHECK(writer.images_written() == 1);  // the chunk was refused before it was written
    append_images({{2, 8}});              // the row's own image: too small to tell
    // Once its image is there, a row's boxes are checked as they come.
    append_images({{6, 5}});
    const Error known = CaughtError([&] { writer.AppendFields(row(normalized)); });
    CHECK(std::string(known.what()) == "row 2 of field boxes (boxes) in " + path + " " + problem);
    writer.AppendFields(row({}));
    writer.Finish(Describe(3));
    CHECK(folder.List() == std::vector<std::string>{"flat.h5"});
  }

  SUBCASE("boxes the caller read as pixels are kept, within 0 to 1 or not, ahead or not") {
    // COCO's one-pixel object at the origin, [0, 0, 1, 1], is no sign of normalized boxes.
    const std::string path = folder / "pixels.h5";
    WriterOptions options = Options({boxes});
    options.flat = FlatLayout{};
    options.box_coordinates = BoxCoordinates::kPixels;
    Writer writer = Writer::Create(path, options);
    writer.AppendFields(row(normalized));  // ahead of its image
    std::vector<uint8_t> chunk(2 * 6 * 5 * 3, 9);
    const StoredImage image{6, 5, 3, ImageEncoding::kRaw, 6 * 5 * 3, 0};
    EncodedChunk encoded;
    writer.EncodePackedInto(chunk, {image, image}, encoded);
    writer.Append(encoded);
    writer.AppendFields(row({0, 0, 1, 1}));  // its image known
    writer.Finish(Describe(2));
    CHECK(folder.List() == std::vector<std::string>{"pixels.h5"});
  }
}

}  // namespace
}  // namespace h5feed
