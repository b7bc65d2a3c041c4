// The fields of an h5feed file as the index reads them (docs/format.md, "Fields"): listed and
// checked at open, read whole by ReadFieldColumn with every row's checksum, from files the
// Writer wrote and files whose fields h5py added following the format; what a reader must
// refuse, and a field claiming 2^40 bytes refused before anything of its size is allocated.

#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "index/field_chunk_index.h"
#include "index/field_values.h"
#include "index_test_files.h"
#include "io/random_access_file.h"
#include "lib/format/field_test_columns.h"

namespace h5feed::index {
namespace {

using testing::CaughtError;
using testing::Contains;
using testing::TempFolder;

const ImageShape kShape{2, 2, 3};
constexpr int64_t kImages = 30;
constexpr int64_t kChunk = 8;
constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

// Writes kImages images in chunks of kChunk with the fields `specs` (field_test_columns.h's
// values), appended `rows_per_call` rows a call.
void WriteWithFields(const std::string& path, const std::vector<FieldSpec>& specs,
                     Compression compression, bool labelled = true, int64_t images = kImages,
                     int64_t rows_per_call = 5) {
  WriterOptions options;
  options.image_shape = kShape;
  options.chunk_images = kChunk;
  options.compression = compression;
  options.overwrite = true;
  options.fields = specs;
  options.labelled = labelled;
  Writer writer = Writer::Create(path, options);
  DatasetDescription d;
  for (int64_t first = 0; first < images; first += kChunk) {
    const int64_t count = std::min(kChunk, images - first);
    std::vector<uint8_t> pixels(static_cast<size_t>(count * kShape.bytes()), 9);
    writer.Append(writer.Encode(pixels, count));
  }
  for (int64_t first = 0; first < images; first += rows_per_call) {
    writer.AppendFields(
        testing::TestFieldColumns(specs, first, std::min(rows_per_call, images - first)));
  }
  for (int64_t i = 0; i < images; ++i) {
    if (labelled) d.labels.push_back(i % 2);
    d.sources.push_back(std::to_string(i));
  }
  if (labelled) d.classes = {"x", "y"};
  d.source_kind = "npy";
  writer.Finish(d);
}

void Edit(const std::string& arguments) {
  testing::Run(std::string(H5FEED_PYTHON) + " " + H5FEED_EDIT_FIELD_FILES + " " + arguments);
}

// The process's peak resident memory so far (VmHWM), in bytes.
uint64_t PeakResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  FAIL("no VmHWM in /proc/self/status");
  return 0;
}

TEST_CASE("the index lists a file's fields in its order, with kind, type and shape") {
  TempFolder folder;
  const std::string path = folder / "fields.h5";
  const std::vector<FieldSpec> specs = testing::TestFieldSpecs();
  WriteWithFields(path, specs, Compression::Parse("gzip:1"));
  const DatasetIndex index = OpenDatasetIndex(path, {});
  CHECK(index.fields == specs);
  CHECK(index.labelled);
  CHECK(index.labels.size() == kImages);

  const std::string plain = folder / "plain.h5";
  testing::WriteH5feedFile(plain, Compression::Parse("none"), 10, 4, kShape);
  CHECK(OpenDatasetIndex(plain, {}).fields.empty());
  CHECK(OpenDatasetIndex(testing::ForeignFile("nhwc_contiguous"), {}).fields.empty());
}

TEST_CASE("every row of every field reads back as written, each checked by its checksum") {
  TempFolder folder;
  const std::vector<FieldSpec> specs = testing::TestFieldSpecs();
  const std::vector<FieldColumn> expected = testing::TestFieldColumns(specs, 0, kImages);
  for (const char* compression : {"zstd:3", "gzip:6", "none"}) {
    const std::string path = folder / (std::string(compression) + ".h5");
    WriteWithFields(path, specs, Compression::Parse(compression));
    const DatasetIndex index = OpenDatasetIndex(path, {});
    for (size_t f = 0; f < specs.size(); ++f) {
      CAPTURE(compression);
      CAPTURE(specs[f].name);
      const FieldColumn column = ReadFieldColumn(index, specs[f].name, kNoLimit);
      CHECK(column == expected[f]);
      CHECK_NOTHROW(CheckFieldColumn(index, specs[f].name));
    }
  }
}

TEST_CASE("fields h5py added as docs/format.md says read back with their checksums") {
  TempFolder folder;
  const std::string path = folder / "h5py.h5";
  for (const char* compression : {"gzip:4", "none"}) {
    CAPTURE(compression);
    testing::WriteH5feedFile(path, Compression::Parse(compression), kImages, kChunk, kShape);
    Edit("add " + path);
    const DatasetIndex index = OpenDatasetIndex(path, {});
    const std::vector<FieldSpec> written = testing::TestFieldSpecs();
    REQUIRE(index.fields.size() == written.size());
    for (size_t f = 0; f < written.size(); ++f) {
      FieldSpec spec = written[f];
      spec.name =
          "h_" + (spec.kind == FieldKind::kArray ? std::string(ToString(spec.type)) : spec.name);
      CAPTURE(spec.name);
      CHECK(index.fields[f] == spec);
      CHECK(ReadFieldColumn(index, spec.name, kNoLimit) ==
            testing::TestFieldColumns({written[f]}, 0, kImages)[0]);
    }
  }
}

TEST_CASE("a file without labels opens with none, and its fields") {
  TempFolder folder;
  const std::string path = folder / "unlabelled.h5";
  const FieldSpec caption{"caption", FieldKind::kText, FieldType::kUint8, {}, {}};
  WriteWithFields(path, {caption}, Compression::Parse("none"), false);
  const DatasetIndex index = OpenDatasetIndex(path, {});
  CHECK(!index.labelled);
  CHECK(index.labels.empty());
  CHECK(index.classes.empty());
  CHECK(index.samples == kImages);
  CHECK(ReadFieldColumn(index, "caption", kNoLimit).rows() == kImages);
}

TEST_CASE("a damaged row is named with its field, its row and its image chunk") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  const FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kUint8, {40}, {}};
  const FieldSpec caption{"caption", FieldKind::kText, FieldType::kUint8, {}, {}};
  WriteWithFields(path, {attrs, caption}, Compression::Parse("none"));
  // Row 13 lies in chunk 1 (rows 8 to 15) of the uncompressed field, 5 rows of 40 bytes in.
  uint64_t address = 0;
  {
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    hdf5::Dataset dataset(H5Dopen2(file.get(), "attrs", H5P_DEFAULT));
    const hsize_t offset[2] = {8, 0};
    unsigned mask = 0;
    haddr_t where = HADDR_UNDEF;
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(dataset.get(), offset, &mask, &where, &size) >= 0);
    REQUIRE(size == 8 * 40);
    address = where;
  }
  testing::FlipByteInFile(path, address + 5 * 40 + 17, 0x01);
  const DatasetIndex index = OpenDatasetIndex(path, {});  // opening reads no value
  const Error row = CaughtError([&] { ReadFieldColumn(index, "attrs", kNoLimit); });
  CHECK(row.code() == ErrorCode::kCorrupt);
  CHECK(Contains(row.what(), "row 13 (chunk 1) of field attrs in " + path + ": checksum mismatch"));
  // Checked a block at a time (verify), the row is named the same.
  CHECK(std::string(CaughtError([&] { CheckFieldColumn(index, "attrs"); }).what()) == row.what());

  Edit("checksum " + path + " caption 17");
  const Error text = CaughtError([&] { ReadFieldColumn(index, "caption", kNoLimit); });
  CHECK(text.code() == ErrorCode::kCorrupt);
  CHECK(Contains(text.what(), "row 17 (chunk 2) of field caption in " + path));
  CHECK(std::string(CaughtError([&] { CheckFieldColumn(index, "caption"); }).what()) ==
        text.what());
}

// The address of chunk `chunk` (rows of kChunk) of field `name` in the file at `path`.
uint64_t FieldChunkAddress(const std::string& path, const std::string& name, int64_t chunk) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hdf5::Dataset dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
  const hsize_t offset[2] = {static_cast<hsize_t>(chunk * kChunk), 0};
  unsigned mask = 0;
  haddr_t where = HADDR_UNDEF;
  hsize_t size = 0;
  REQUIRE(H5Dget_chunk_info_by_coord(dataset.get(), offset, &mask, &where, &size) >= 0);
  return where;
}

TEST_CASE("asked for its damaged rows, a read lists them and holds them as zeros") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  const FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kUint8, {40}, {}};
  const FieldSpec caption{"caption", FieldKind::kText, FieldType::kUint8, {}, {}};
  WriteWithFields(path, {attrs, caption}, Compression::Parse("none"));
  testing::FlipByteInFile(path, FieldChunkAddress(path, "attrs", 1) + 5 * 40 + 17, 0x01);
  Edit("checksum " + path + " caption 17");
  Edit("checksum " + path + " caption 18");
  const DatasetIndex index = OpenDatasetIndex(path, {});
  const std::vector<FieldColumn> written = testing::TestFieldColumns({attrs, caption}, 0, kImages);

  std::vector<DamagedFieldRow> damaged;
  const FieldColumn values = ReadFieldColumn(index, "attrs", kNoLimit, "", &damaged);
  REQUIRE(damaged.size() == 1);
  CHECK(damaged[0].row == 13);
  CHECK(damaged[0].chunk == 1);
  // The words of the error it would have thrown.
  CHECK(damaged[0].problem ==
        std::string(CaughtError([&] { ReadFieldColumn(index, "attrs", kNoLimit); }).what()));
  REQUIRE(values.rows() == kImages);
  CHECK(values.row(13).size() == 40);
  CHECK(
      std::all_of(values.row(13).begin(), values.row(13).end(), [](uint8_t b) { return b == 0; }));
  for (int64_t r = 0; r < kImages; ++r) {
    CAPTURE(r);
    if (r != 13) CHECK(std::ranges::equal(values.row(r), written[0].row(r)));
  }

  damaged.clear();
  const FieldColumn text = ReadFieldColumn(index, "caption", kNoLimit, "", &damaged);
  REQUIRE(damaged.size() == 2);
  CHECK(damaged[0].row == 17);
  CHECK(damaged[1].row == 18);
  CHECK(damaged[1].chunk == 2);
  CHECK(Contains(damaged[1].problem, "row 18 (chunk 2) of field caption in " + path));
  for (int64_t r = 0; r < kImages; ++r) {
    CAPTURE(r);
    if (r == 17 || r == 18) {  // zeros as long as the stored row
      CHECK(text.row(r).size() == written[1].row(r).size());
      CHECK(std::all_of(text.row(r).begin(), text.row(r).end(), [](uint8_t b) { return b == 0; }));
    } else {
      CHECK(std::ranges::equal(text.row(r), written[1].row(r)));
    }
  }
}

TEST_CASE("asked for its damaged rows, a read lists those of a chunk HDF5 cannot decompress") {
  TempFolder folder;
  const std::string path = folder / "undecodable.h5";
  const FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kUint8, {40}, {}};
  WriteWithFields(path, {attrs}, Compression::Parse("zstd"));
  // The zstd frame of the field's chunk 1 (rows 8-15) no longer starts with its magic number.
  for (uint64_t b = 0; b < 4; ++b) {
    testing::FlipByteInFile(path, FieldChunkAddress(path, "attrs", 1) + b, 0xFF);
  }
  const DatasetIndex index = OpenDatasetIndex(path, {});
  CHECK(CaughtError([&] { ReadFieldColumn(index, "attrs", kNoLimit); }).code() ==
        ErrorCode::kCorrupt);
  std::vector<DamagedFieldRow> damaged;
  const FieldColumn values = ReadFieldColumn(index, "attrs", kNoLimit, "", &damaged);
  REQUIRE(damaged.size() == static_cast<size_t>(kChunk));  // each read alone, each failing
  const std::vector<FieldColumn> written = testing::TestFieldColumns({attrs}, 0, kImages);
  REQUIRE(values.rows() == kImages);
  for (int64_t r = 0; r < kImages; ++r) {
    CAPTURE(r);
    const bool in_chunk = r >= 8 && r < 16;
    if (in_chunk) {
      CHECK(damaged[static_cast<size_t>(r - 8)].row == r);
      CHECK(damaged[static_cast<size_t>(r - 8)].chunk == 1);
      CHECK(Contains(damaged[static_cast<size_t>(r - 8)].problem,
                     "row " + std::to_string(r) + " (chunk 1) of field attrs in " + path));
      CHECK(values.row(r).size() == 40);
      CHECK(std::all_of(values.row(r).begin(), values.row(r).end(),
                        [](uint8_t b) { return b == 0; }));
    } else {
      CHECK(std::ranges::equal(values.row(r), written[0].row(r)));
    }
  }
}

TEST_CASE("a bytes field claiming 2^40 bytes is refused before anything of its size exists") {
  // 300 rows each claiming 2^32 - 1 bytes: 2^40 and more in all. HDF5 1.10.8 itself would
  // allocate and zero each claimed row before any allocator of ours is asked
  // (hdf5/variable_length_claims.h); the claims are read from the chunks instead.
  TempFolder folder;
  const std::string path = folder / "claims.h5";
  const FieldSpec blob{"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}};
  WriteWithFields(path, {blob}, Compression::Parse("none"), true, 300, 300);
  Edit("claim " + path + " blob");
  const DatasetIndex index = OpenDatasetIndex(path, {});
  const uint64_t peak_before = PeakResidentBytes();
  const Error limited = CaughtError([&] { ReadFieldColumn(index, "blob", uint64_t{1} << 30); });
  INFO(std::string(limited.what()));
  CHECK(limited.code() == ErrorCode::kCorrupt);  // more than any machine here holds
  CHECK(Contains(limited.what(), "field blob in " + path));
  CHECK(Contains(limited.what(), "300 rows claiming 1.2 TiB"));
  CHECK(PeakResidentBytes() < peak_before + (uint64_t{256} << 20));

  // A row claiming more than a row may hold is damage too, whatever the caller allows.
  const std::string one = folder / "one.h5";
  WriteWithFields(one, {blob}, Compression::Parse("none"), true, 1, 1);
  Edit("claim " + one + " blob");
  const Error row =
      CaughtError([&] { ReadFieldColumn(OpenDatasetIndex(one, {}), "blob", kNoLimit); });
  INFO(std::string(row.what()));
  CHECK(row.code() == ErrorCode::kCorrupt);
  CHECK(
      Contains(row.what(), "row 0 (chunk 0) of field blob in " + one + " claims 4294967295 bytes"));
  CHECK(PeakResidentBytes() < peak_before + (uint64_t{256} << 20));

  // Checked a block at a time nothing is held, so no column is too large; the claims are
  // still read first, and a row claiming more than a row may hold is still refused unread.
  const Error checked = CaughtError([&] { CheckFieldColumn(index, "blob"); });
  CHECK(checked.code() == ErrorCode::kCorrupt);
  CHECK(Contains(checked.what(), "claims 4294967295 bytes, more than a row may hold"));
  CHECK(PeakResidentBytes() < peak_before + (uint64_t{256} << 20));
}

TEST_CASE("a field is refused at open when it is not what the file says it is") {
  TempFolder folder;
  const std::vector<FieldSpec> specs = testing::TestFieldSpecs();
  const std::string original = folder / "original.h5";
  WriteWithFields(original, specs, Compression::Parse("none"));
  struct Case {
    const char* name;
    std::string edit;  // PATH is put after the command
    std::string says;
  };
  const std::vector<Case> cases = {
      {"rows", "rows PATH a_uint8 31",
       "field a_uint8 in PATH has shape (31, 40); an array field has one row per image (30)"},
      {"kind", "kind PATH a_uint8 text", "field a_uint8 in PATH says it is text but holds uint8"},
      {"unknown_kind", "kind PATH blob list",
       "field blob in PATH has attribute h5feed_field = \"list\""},
      {"matrix", "matrix PATH blob", "field blob in PATH has shape (30, 2)"},
      {"contiguous", "contiguous PATH caption", "field caption in PATH is stored contiguous"},
      {"missing", "list PATH a_bool nope", "PATH lists field nope but has no dataset /nope"},
      {"twice", "list PATH a_bool a_bool", "lists field a_bool twice"},
      {"reserved", "list PATH labels", "lists a field that cannot be"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string path = testing::CopyTo(original, folder / (std::string(c.name) + ".h5"));
    std::string edit = c.edit;
    edit.replace(edit.find("PATH"), 4, path);
    Edit(edit);
    std::string says = c.says;
    if (says.find("PATH") != std::string::npos) says.replace(says.find("PATH"), 4, path);
    const Error error = CaughtError([&] { OpenDatasetIndex(path, {}); });
    INFO(std::string(error.what()));
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(), says));
  }
}

TEST_CASE("an unknown field is not found, and one over max_bytes refused before it is read") {
  TempFolder folder;
  const std::string path = folder / "fields.h5";
  const FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kFloat32, {40}, {}};
  WriteWithFields(path, {attrs}, Compression::Parse("none"));
  const DatasetIndex index = OpenDatasetIndex(path, {});
  const Error unknown = CaughtError([&] { ReadFieldColumn(index, "atrs", kNoLimit); });
  CHECK(unknown.code() == ErrorCode::kNotFound);
  CHECK(Contains(unknown.what(), "no field atrs in " + path + "; its fields: attrs (float32[40])"));
  // 30 rows of 160 bytes and 8 bytes for each row's end: 5040 bytes.
  CHECK(ReadFieldColumn(index, "attrs", 5040).rows() == kImages);
  const Error over = CaughtError([&] { ReadFieldColumn(index, "attrs", 5039); });
  INFO(std::string(over.what()));
  CHECK(over.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(over.what(), "field attrs in " + path + " (30 rows of float32[40]) would take"));

  // A bytes field's size is what its rows claim: 30 rows of 0 to 6 bytes, 85 in all.
  const std::string blobs = folder / "blobs.h5";
  const FieldSpec blob{"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}};
  WriteWithFields(blobs, {blob}, Compression::Parse("none"));
  const DatasetIndex with_blobs = OpenDatasetIndex(blobs, {});
  CHECK(ReadFieldColumn(with_blobs, "blob", 30 * 8 + 85).data().size() == 85);
  const Error claimed = CaughtError([&] { ReadFieldColumn(with_blobs, "blob", 30 * 8 + 84); });
  CHECK(claimed.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(claimed.what(), "(30 rows claiming 85 B) would take"));
}

TEST_CASE("an array field's chunk table says where HDF5 stored each chunk, and its checksum") {
  // 30 rows in chunks of 8: the last chunk is short, stored whole with zeros after its rows.
  TempFolder folder;
  for (const char* compression : {"none", "zstd:3"}) {
    CAPTURE(compression);
    const std::string path = folder / (std::string(compression).substr(0, 4) + ".h5");
    WriteWithFields(path, testing::TestFieldSpecs(), Compression::Parse(compression));
    const DatasetIndex index = OpenDatasetIndex(path, {});
    int tabled = 0;
    for (const FieldSpec& spec : index.fields) {
      CAPTURE(spec.name);
      const std::optional<DatasetIndex> field = FieldChunkIndex(index, spec);
      // Bytes and text are not read by chunk (their values lie in HDF5's heap).
      REQUIRE(field.has_value() == (spec.kind == FieldKind::kArray));
      if (!field) continue;
      ++tabled;
      CHECK(field->read_path == ReadPath::kStoredTable);
      REQUIRE(field->chunks.size() == 4u);
      {
        auto lock = hdf5::Lock();
        hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        hdf5::Dataset dataset(H5Dopen2(file.get(), spec.name.c_str(), H5P_DEFAULT));
        for (int64_t c = 0; c < 4; ++c) {
          const uint64_t offset[1] = {static_cast<uint64_t>(c * kChunk)};
          hdf5::ChunkPlace place;
          REQUIRE(hdf5::LocateChunk(dataset.get(), offset, place));
          const ChunkLocation& row = field->chunks[static_cast<size_t>(c)];
          CHECK(row.address == place.address);
          CHECK(row.stored_bytes == place.stored_bytes);
        }
      }
      // Each chunk read by address, decoded and checked whole against its checksum.
      const std::unique_ptr<io::RandomAccessFile> file = io::OpenPosixFile(path);
      const ChunkReader chunks(*field, *file, {});
      std::vector<uint8_t> decoded(static_cast<size_t>(chunks.chunk_bytes()));
      for (int64_t c = 0; c < 4; ++c) {
        chunks.Read(c, decoded);
        const std::vector<uint8_t> row = testing::TestFieldRow(spec, c * kChunk + 1);
        CHECK(std::equal(row.begin(), row.end(), decoded.begin() + row.size()));
      }
    }
    CHECK(tabled == 12);
  }
}

TEST_CASE("fields without chunk tables are read through HDF5; a table that moved is refused") {
  TempFolder folder;
  const std::string original = folder / "original.h5";
  WriteWithFields(original, testing::TestFieldSpecs(), Compression::Parse("zstd:3"));
  const FieldSpec spec = OpenDatasetIndex(original, {}).fields.at(1);  // int8[2,3]

  // A file written before the tables: each chunk located by HDF5, and the same rows.
  const std::string untabled = testing::CopyTo(original, folder / "untabled.h5");
  Edit("untabled " + untabled);
  const std::optional<DatasetIndex> through_hdf5 =
      FieldChunkIndex(OpenDatasetIndex(untabled, {}), spec);
  REQUIRE(through_hdf5);
  CHECK(through_hdf5->read_path == ReadPath::kHdf5Chunk);
  CHECK(through_hdf5->chunks.empty());
  const std::unique_ptr<io::RandomAccessFile> file = io::OpenPosixFile(untabled);
  const ChunkReader chunks(*through_hdf5, *file, {.rows_checked_by_caller = true});
  std::vector<uint8_t> decoded(static_cast<size_t>(chunks.chunk_bytes()));
  chunks.Read(3, decoded);
  const std::vector<uint8_t> row = testing::TestFieldRow(spec, 3 * kChunk);
  CHECK(std::equal(row.begin(), row.end(), decoded.begin()));

  // A table whose rows no longer say where the chunks are (the file rewritten by a tool that
  // moved them): refused, naming the field's dataset, the chunk and the way out.
  for (int chunk : {0, 3}) {
    CAPTURE(chunk);
    const std::string moved =
        testing::CopyTo(original, folder / ("moved" + std::to_string(chunk) + ".h5"));
    Edit("moved " + moved + " " + spec.name + " " + std::to_string(chunk));
    const DatasetIndex index = OpenDatasetIndex(moved, {});
    const Error error = CaughtError([&] { FieldChunkIndex(index, spec); });
    INFO(std::string(error.what()));
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(), "the chunk table of /" + spec.name + " in " + moved +
                                     " does not match the file: chunk " + std::to_string(chunk)));
    CHECK(Contains(error.what(), "h5feed rechunk"));
  }
}

}  // namespace
}  // namespace h5feed::index
