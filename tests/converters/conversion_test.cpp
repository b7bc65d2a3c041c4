#include "conversion.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "index/field_values.h"
#include "sources/hdf5_source.h"
#include "sources/own_size_file_source.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;
using testing::SampleBuffer;
using testing::TempFolder;

constexpr ImageShape kShape{6, 5, 3};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

uint8_t PixelOf(int64_t row, int64_t byte) { return static_cast<uint8_t>(row * 31 + byte * 7); }

// Samples of one shape, some of them broken (Error kCorrupt once their memory is asked for, so
// a conversion must take that room back), written as a version 1 file or, with own_size, as a
// flat one. `odd_row` is delivered at another shape than shape() says.
class PatternSource final : public SampleSource {
 public:
  PatternSource(int64_t count, std::set<int64_t> broken, bool own_size, int64_t odd_row = -1)
      : count_(count), broken_(std::move(broken)), own_size_(own_size), odd_row_(odd_row) {}

  std::string_view kind() const override { return "pattern"; }
  int64_t count() const override { return count_; }
  ImageShape shape() const override { return kShape; }
  std::vector<std::string> classes() const override { return {"a", "b", "c"}; }
  bool own_size() const override { return own_size_; }
  std::string name(int64_t i) const override { return "row" + std::to_string(i); }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    const ImageShape shape = i == odd_row_ ? ImageShape{5, 6, 3} : kShape;
    const std::span<uint8_t> pixels = dest.MemoryFor(shape);
    if (broken_.count(i)) throw MakeError(ErrorCode::kCorrupt, "{} is broken", name(i));
    for (size_t b = 0; b < pixels.size(); ++b) pixels[b] = PixelOf(i, static_cast<int64_t>(b));
    return {i % 3, name(i)};
  }

 private:
  int64_t count_;
  std::set<int64_t> broken_;
  bool own_size_;
  int64_t odd_row_;
};

ConvertOptions SmallChunks(bool own_size) {
  ConvertOptions options;
  if (own_size) {
    options.chunk_bytes = 3 * kShape.bytes();  // 3 images a chunk
  } else {
    options.chunk_images = 4;
  }
  options.seed = 11;
  options.threads = 2;
  return options;
}

// Every stored image of `file` in stored order: the source row whose pixels it holds (-1 for
// none), and whether its shape and label are that row's.
struct StoredRow {
  int64_t row = -1;
  bool intact = false;
};

std::vector<StoredRow> StoredRows(const SampleSource& file, int64_t source_rows) {
  std::vector<StoredRow> rows;
  SampleBuffer buffer;
  for (int64_t n = 0; n < file.count(); ++n) {
    const SampleInfo info = file.Read(n, buffer);
    StoredRow stored;
    for (int64_t row = 0; row < source_rows && stored.row < 0; ++row) {
      bool same = buffer.pixels.size() == static_cast<size_t>(kShape.bytes());
      for (size_t b = 0; same && b < buffer.pixels.size(); ++b) {
        same = buffer.pixels[b] == PixelOf(row, static_cast<int64_t>(b));
      }
      if (same) stored.row = row;
    }
    stored.intact = stored.row >= 0 && buffer.shape == kShape && info.label == stored.row % 3;
    rows.push_back(stored);
  }
  return rows;
}

TEST_CASE("both layouts store the same samples in the same order, skipping the same broken ones") {
  TempFolder folder;
  const std::set<int64_t> broken = {0, 5, 6, 17, 30};
  std::vector<std::vector<std::string>> skipped_seen(2);
  std::vector<ConvertReport> reports;
  for (bool own_size : {false, true}) {
    ConvertOptions options = SmallChunks(own_size);
    ConvertProgress last;
    options.on_progress = [&](const ConvertProgress& progress) { last = progress; };
    options.on_skip = [&](const SkippedSource& skipped) {
      skipped_seen[own_size].push_back(skipped.source);
    };
    const PatternSource source(31, broken, own_size);
    reports.push_back(Convert(source, folder / (own_size ? "flat.h5" : "fixed.h5"), options));
    CHECK(last.done == 31);
    CHECK(last.total == 31);
    CHECK(last.skipped == 5);
  }
  const ConvertReport& fixed = reports[0];
  const ConvertReport& flat = reports[1];
  CHECK(fixed.images == 26);
  CHECK(flat.images == 26);
  CHECK(fixed.chunks == 7);  // 26 images, 4 a chunk: a skip shifts the later images
  CHECK(flat.chunks == 9);   // 3 a chunk
  CHECK(fixed.raw_bytes == flat.raw_bytes);
  CHECK(!fixed.own_size);
  CHECK(flat.own_size);
  CHECK(flat.payload_bytes == flat.raw_bytes);
  CHECK(fixed.payload_bytes == 0);
  // Skips are reported in stored order, the same for both, and recorded as reported.
  CHECK(skipped_seen[0] == skipped_seen[1]);
  CHECK(skipped_seen[0].size() == 5);
  for (const ConvertReport& report : reports) {
    REQUIRE(report.skipped.size() == 5);
    for (size_t s = 0; s < 5; ++s) CHECK(report.skipped[s].source == skipped_seen[0][s]);
  }

  const std::unique_ptr<SampleSource> fixed_file = OpenHdf5(folder / "fixed.h5", {});
  const std::vector<StoredRow> fixed_rows = StoredRows(*fixed_file, 31);
  const std::vector<StoredRow> flat_rows = StoredRows(*OpenOwnSizeFile(folder / "flat.h5"), 31);
  REQUIRE(fixed_rows.size() == 26);
  REQUIRE(flat_rows.size() == 26);
  std::set<int64_t> rows;
  for (size_t n = 0; n < 26; ++n) {
    CAPTURE(n);
    CHECK(fixed_rows[n].row == flat_rows[n].row);
    CHECK(fixed_rows[n].intact);
    CHECK(flat_rows[n].intact);
    CHECK(fixed_file->name(static_cast<int64_t>(n)) == "row" + std::to_string(fixed_rows[n].row));
    rows.insert(fixed_rows[n].row);
  }
  CHECK(rows.size() == 26);
  for (int64_t row : broken) CHECK(rows.count(row) == 0);
}

TEST_CASE("the default chunk holds the samples stored, not the inputs offered") {
  TempFolder folder;
  ConvertOptions options;  // K by default: all 7 inputs fit in 4 MiB
  options.threads = 2;
  const ConvertReport report = Convert(PatternSource(7, {2, 5}, false), folder / "out.h5", options);
  CHECK(report.images == 5);
  CHECK(report.chunks == 1);
  CHECK(report.chunk_images == 5);
  // The file's chunk shape, as every reader sees it: the 5 images stored, not the 7 offered.
  const index::DatasetIndex stored = index::OpenDatasetIndex(folder / "out.h5", {});
  CHECK(stored.chunk_samples == 5);
  CHECK(stored.samples == 5);
  // K given, or a chunk filled by the images before the first broken one: the file keeps K.
  options.chunk_images = 7;
  CHECK(Convert(PatternSource(7, {2, 5}, false), folder / "given.h5", options).chunk_images == 7);
  CHECK(index::OpenDatasetIndex(folder / "given.h5", {}).chunk_samples == 7);
  options.chunk_images = 0;
  options.chunk_bytes = 2 * kShape.bytes();  // K = 2: the first chunk is whole
  CHECK(Convert(PatternSource(7, {2, 5}, false), folder / "two.h5", options).chunk_images == 2);
  CHECK(index::OpenDatasetIndex(folder / "two.h5", {}).chunk_samples == 2);
}

// PatternSource's samples with a value of each of four fields (every kind, a bool array among
// them, empty bytes rows among the others), labelled or not. Row `bad_row`'s value of field
// `bad_field` is `bad_value` instead of its own.
class FieldSource final : public SampleSource {
 public:
  FieldSource(int64_t count, std::set<int64_t> broken, bool own_size, bool labelled = true)
      : pattern_(count, std::move(broken), own_size), labelled_(labelled) {}

  static std::vector<FieldSpec> Specs() {
    return {{"attrs", FieldKind::kArray, FieldType::kBool, {5}, {}},
            {"points", FieldKind::kArray, FieldType::kFloat32, {2, 3}, {}},
            {"caption", FieldKind::kText, FieldType::kUint8, {}, {}},
            {"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}}};
  }

  static std::vector<std::vector<uint8_t>> ValuesOf(int64_t row) {
    std::vector<std::vector<uint8_t>> values(4);
    for (int bit = 0; bit < 5; ++bit) values[0].push_back(static_cast<uint8_t>((row >> bit) & 1));
    for (int e = 0; e < 6; ++e) {
      const float value = static_cast<float>(row) + 0.25f * static_cast<float>(e);
      const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
      values[1].insert(values[1].end(), bytes, bytes + sizeof value);
    }
    std::string caption = "caption of row " + std::to_string(row);
    for (int64_t k = 0; k < row % 4; ++k) caption += "\xc3\xa9";  // é: two bytes of UTF-8
    values[2].assign(caption.begin(), caption.end());
    values[3].assign(static_cast<size_t>(row % 5), static_cast<uint8_t>(row));
    return values;
  }

  void Spoil(int64_t row, size_t field, std::vector<uint8_t> value) {
    bad_row_ = row;
    bad_field_ = field;
    bad_value_ = std::move(value);
  }

  std::string_view kind() const override { return "pattern"; }
  int64_t count() const override { return pattern_.count(); }
  ImageShape shape() const override { return pattern_.shape(); }
  std::vector<std::string> classes() const override { return pattern_.classes(); }
  bool own_size() const override { return pattern_.own_size(); }
  std::string name(int64_t i) const override { return pattern_.name(i); }
  std::vector<FieldSpec> fields() const override { return Specs(); }
  bool labelled() const override { return labelled_; }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    SampleInfo info = pattern_.Read(i, dest);
    info.fields = ValuesOf(i);
    if (i == bad_row_) {
      if (bad_field_ < info.fields.size()) {
        info.fields[bad_field_] = bad_value_;
      } else {
        info.fields.pop_back();
      }
    }
    return info;
  }

 private:
  PatternSource pattern_;
  bool labelled_;
  int64_t bad_row_ = -1;
  size_t bad_field_ = 0;
  std::vector<uint8_t> bad_value_;
};

TEST_CASE("fields travel with their samples through both layouts, a skipped sample's with it") {
  TempFolder folder;
  const std::set<int64_t> broken = {0, 5, 6, 17, 30};
  for (bool own_size : {false, true}) {
    CAPTURE(own_size);
    const std::string path = folder / (own_size ? "flat.h5" : "fixed.h5");
    const FieldSource source(31, broken, own_size);
    CHECK(Convert(source, path, SmallChunks(own_size)).images == 26);

    const index::DatasetIndex index = index::OpenDatasetIndex(path, {});
    CHECK(index.fields == FieldSource::Specs());
    CHECK(index.labelled);
    const std::vector<StoredRow> stored =
        StoredRows(*(own_size ? OpenOwnSizeFile(path) : OpenHdf5(path, {})), 31);
    REQUIRE(stored.size() == 26);
    for (size_t f = 0; f < index.fields.size(); ++f) {
      const FieldColumn column =
          index::ReadFieldColumn(index, index.fields[f].name, uint64_t{1} << 30);
      REQUIRE(column.rows() == 26);
      for (int64_t n = 0; n < 26; ++n) {
        CAPTURE(n);
        const std::vector<uint8_t> expected =
            FieldSource::ValuesOf(stored[static_cast<size_t>(n)].row)[f];
        const std::span<const uint8_t> row = column.row(n);
        CHECK(std::vector<uint8_t>(row.begin(), row.end()) == expected);
      }
    }
  }
}

TEST_CASE("a sample whose field value does not fit its field stops the conversion, naming both") {
  TempFolder folder;
  struct Spoiled {
    size_t field;
    std::vector<uint8_t> value;
    std::string problem;
  };
  const std::vector<Spoiled> cases = {
      {0, {1, 0, 1}, "field attrs (bool[5]) of row7 is 3 bytes, not the 5 of bool[5]"},
      {0, {1, 0, 2, 0, 0}, "field attrs (bool[5]) of row7 holds 2 at element 2"},
      {2, {'a', 0xC3}, "field caption (text) of row7 is not valid UTF-8 (byte 1)"},
      {4, {}, "row7 of a pattern source carries 3 field values, but the source has 4 fields"}};
  for (bool own_size : {false, true}) {
    for (const Spoiled& spoiled : cases) {
      CAPTURE(spoiled.problem);
      FieldSource source(12, {}, own_size);
      source.Spoil(7, spoiled.field, spoiled.value);
      // Not a broken input to skip: even without --strict, the conversion stops.
      const Error error =
          CaughtError([&] { Convert(source, folder / "out.h5", SmallChunks(own_size)); });
      CHECK(error.code() == ErrorCode::kInvalidArgument);
      CHECK(Contains(error.what(), spoiled.problem));
      CHECK(folder.List().empty());
    }
  }
}

TEST_CASE("a source without labels writes a file without labels or classes") {
  TempFolder folder;
  for (bool own_size : {false, true}) {
    const std::string path = folder / (own_size ? "flat.h5" : "fixed.h5");
    CHECK(Convert(FieldSource(9, {2}, own_size, false), path, SmallChunks(own_size)).images == 8);
    const index::DatasetIndex index = index::OpenDatasetIndex(path, {});
    CHECK(!index.labelled);
    CHECK(index.labels.empty());
    CHECK(index.classes.empty());
    CHECK(index::ReadFieldColumn(index, "caption", uint64_t{1} << 30).rows() == 8);
  }
}

TEST_CASE("a source of one shape that delivers a sample of another stops the conversion") {
  TempFolder folder;
  const PatternSource source(12, {}, false, 7);
  const Error error = CaughtError([&] { Convert(source, folder / "out.h5", SmallChunks(false)); });
  CHECK(error.code() == ErrorCode::kInternal);
  const std::string message = error.what();
  CHECK(message.find("row7") != std::string::npos);
  CHECK(message.find("5x6x3") != std::string::npos);
  CHECK(message.find("6x5x3") != std::string::npos);
  CHECK(folder.List().empty());  // the temporary file removed
  // At its own size, the same sample is simply stored at its shape.
  CHECK(Convert(PatternSource(12, {}, true, 7), folder / "flat.h5", SmallChunks(true)).images ==
        12);
}

TEST_CASE("with strict, a broken sample is an error and nothing is written") {
  TempFolder folder;
  for (bool own_size : {false, true}) {
    ConvertOptions options = SmallChunks(own_size);
    options.strict = true;
    const Error error =
        CaughtError([&] { Convert(PatternSource(20, {9}, own_size), folder / "out.h5", options); });
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).find("row9 is broken") != std::string::npos);
    CHECK(folder.List().empty());
  }
}

TEST_CASE("a cancelled conversion stops, removes its temporary file and says so") {
  TempFolder folder;
  for (bool own_size : {false, true}) {
    std::atomic<bool> cancel{false};
    ConvertOptions options = SmallChunks(own_size);
    options.cancel = &cancel;
    options.on_progress = [&](const ConvertProgress&) { cancel = true; };
    const Error error =
        CaughtError([&] { Convert(PatternSource(200, {}, own_size), folder / "out.h5", options); });
    CHECK(error.code() == ErrorCode::kCancelled);
    CHECK(folder.List().empty());
  }
}

TEST_CASE("options that do not suit the source's layout are refused before anything is written") {
  TempFolder folder;
  ConvertOptions jpeg;
  jpeg.encoding = StoredEncoding::Parse("jpeg");
  CHECK(CaughtError([&] { Convert(PatternSource(4, {}, false), folder / "a.h5", jpeg); }).code() ==
        ErrorCode::kInvalidArgument);
  ConvertOptions k;
  k.chunk_images = 2;
  CHECK(CaughtError([&] { Convert(PatternSource(4, {}, true), folder / "b.h5", k); }).code() ==
        ErrorCode::kInvalidArgument);
  CHECK(folder.List().empty());
}

}  // namespace
}  // namespace h5feed::converters
