// The fields a Loader delivers (LoaderOptions::fields, Batch's field calls), through its public
// contract: files written with the Writer holding an array field of every element type and
// several shapes, a bytes and a text field (tests/lib/format/field_test_columns.h, whose every
// value is a function of its row), with and without labels. Every field of every delivered row
// equals the file's row at the batch's index, in a plain epoch, under 2 ranks, after a resume
// mid-epoch on another number of ranks, with echo 2, with corrupt chunks skipped, with
// normalized views resized between epochs, with several augmented views, and from a file served
// over http; a file without labels delivers none; what is asked wrongly is refused, naming what
// there is. The GPU stage's fields: gpu_fields_test.cpp (also on the CUDA emulation).

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "lib/format/field_test_columns.h"
#include "lib/loader/damaged_field_rows.h"
#include "lib/loader/field_test_file.h"
#include "support/caught_error.h"
#include "support/http_server.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::AllTestFieldNames;
using testing::CaughtError;
using testing::CheckBatchFields;
using testing::TempFolder;

constexpr int64_t kSamples = 157;  // divisible by none of 2, 3, 7, 16
constexpr int64_t kChunk = 16;
const ImageShape kShape{4, 4, 3};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void WriteFieldFile(const std::string& path, bool labelled) {
  testing::WriteFieldTestFile(path, kSamples, kShape, kChunk, labelled);
}

const std::string& FieldFile(bool labelled) {
  static TempFolder folder;
  static const std::string with_labels = [] {
    std::string p = folder / "labelled.h5";
    WriteFieldFile(p, true);
    return p;
  }();
  static const std::string without_labels = [] {
    std::string p = folder / "unlabelled.h5";
    WriteFieldFile(p, false);
    return p;
  }();
  return labelled ? with_labels : without_labels;
}

LoaderOptions Options(const std::vector<std::string>& fields,
                      const std::string& sampler = "chunks:2") {
  LoaderOptions options;
  options.batch_size = 12;
  options.sampler = SamplerOptions::Parse(sampler);
  options.seed = 5;
  options.threads = 2;
  options.slots = 4;
  options.fields = fields;
  options.open_probe = false;  // many opens of good files
  options.on_warning = [](const std::string&) {};
  return options;
}

// The rest of the current epoch, every batch's fields checked; the rows delivered counted.
void ReadChecked(Loader& loader, const std::vector<std::string>& asked,
                 std::map<int64_t, int>& rows, int64_t steps = -1) {
  for (int64_t n = 0; steps < 0 || n < steps; ++n) {
    std::optional<Batch> batch = loader.Next();
    if (!batch) break;
    for (int64_t row : CheckBatchFields(*batch, asked)) ++rows[row];
  }
}

TEST_CASE("every field of every delivered row is the file's row at the batch's index") {
  const std::vector<std::string> asked = AllTestFieldNames();
  for (const bool labelled : {true, false}) {
    for (const std::string sampler : {"sequential", "chunks:2", "random"}) {
      CAPTURE(labelled);
      CAPTURE(sampler);
      Loader loader = Loader::Open(FieldFile(labelled), Options(asked, sampler));
      CHECK(loader.fields() == testing::TestFieldSpecs());
      std::map<int64_t, int> rows;
      loader.SetEpoch(1);
      ReadChecked(loader, asked, rows);
      CHECK(rows.size() == static_cast<size_t>(kSamples));
    }
  }
}

TEST_CASE("the fields come in the order asked, and a loader asked for none carries none") {
  const std::vector<std::string> asked = {"caption", "a_float32", "blob", "a_bool"};
  Loader loader = Loader::Open(FieldFile(true), Options(asked));
  CHECK(loader.fields().size() == 4);
  std::map<int64_t, int> rows;
  loader.SetEpoch(0);
  ReadChecked(loader, asked, rows);
  CHECK(rows.size() == static_cast<size_t>(kSamples));

  Loader plain = Loader::Open(FieldFile(true), Options({}));
  CHECK(plain.fields().empty());
  const std::optional<Batch> batch = plain.Next();
  REQUIRE(batch);
  CHECK(batch->fields() == 0);
  CHECK(batch->labels().size() == static_cast<size_t>(batch->size()));
}

TEST_CASE("a file without labels delivers none, and is not measured for label mixing") {
  std::vector<std::string> warnings;
  LoaderOptions options = Options({"a_uint8"}, "chunks:1");
  options.on_warning = [&](const std::string& warning) { warnings.push_back(warning); };
  options.cache_bytes = int64_t{64} << 20;  // no cache warning either
  Loader loader = Loader::Open(FieldFile(false), options);
  CHECK(warnings.empty());
  int64_t delivered = 0;
  while (auto batch = loader.Next()) {
    CHECK(batch->labels().empty());
    const TensorView labels = batch->label_tensor();
    CHECK(labels.rank == 0);
    CHECK(labels.data == nullptr);
    CHECK(batch->indices().size() == static_cast<size_t>(batch->size()));
    CheckBatchFields(*batch, {"a_uint8"});
    delivered += batch->size();
  }
  CHECK(delivered == kSamples);

  // The same file with labels delivers them, with its fields.
  Loader labelled = Loader::Open(FieldFile(true), Options({"a_uint8"}));
  const std::optional<Batch> batch = labelled.Next();
  REQUIRE(batch);
  for (int64_t i = 0; i < batch->size(); ++i) {
    CHECK(batch->labels()[static_cast<size_t>(i)] == batch->indices()[static_cast<size_t>(i)] % 7);
  }
}

TEST_CASE("under 2 ranks each rank's rows carry their own fields, and every row is read") {
  const std::vector<std::string> asked = {"a_int16", "a_float16", "caption"};
  std::map<int64_t, int> rows;
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions options = Options(asked);
    options.shard = {rank, 2, false};
    Loader loader = Loader::Open(FieldFile(false), options);
    loader.SetEpoch(3);
    ReadChecked(loader, asked, rows);
  }
  CHECK(rows.size() == static_cast<size_t>(kSamples));  // 158 deliveries: one row padded
}

TEST_CASE("after a resume mid-epoch on another number of ranks the fields follow their rows") {
  const std::vector<std::string> asked = {"a_uint64", "a_int8", "blob"};
  std::vector<Loader> old_job;
  std::map<int64_t, int> rows;
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions options = Options(asked);
    options.shard = {rank, 2, false};
    old_job.push_back(Loader::Open(FieldFile(true), options));
    old_job.back().SetEpoch(2);
    ReadChecked(old_job.back(), asked, rows, 3);
  }
  const LoaderState state = old_job[0].State();
  old_job.clear();
  for (int rank = 0; rank < 3; ++rank) {
    LoaderOptions options = Options(asked);
    options.shard = {rank, 3, false};
    Loader loader = Loader::Open(FieldFile(true), options);
    loader.Restore(state);
    ReadChecked(loader, asked, rows);
  }
  CHECK(rows.size() == static_cast<size_t>(kSamples));  // every row of the epoch, fields checked
}

TEST_CASE("with echo 2 every copy's fields are permuted with its rows") {
  const std::vector<std::string> asked = AllTestFieldNames();
  LoaderOptions options = Options(asked);
  options.echo = 2;
  Loader loader = Loader::Open(FieldFile(true), options);
  std::map<int64_t, int> rows;
  int64_t batches = 0;
  std::vector<int64_t> first_copy;
  while (auto batch = loader.Next()) {
    const std::vector<int64_t> indices = CheckBatchFields(*batch, asked);
    for (int64_t row : indices) ++rows[row];
    if (batch->step() % 2 == 0) first_copy = indices;
    if (batch->step() % 2 == 1 && indices.size() > 2) CHECK(indices != first_copy);  // reshuffled
    ++batches;
  }
  CHECK(batches == 2 * ((kSamples + 11) / 12));
  CHECK(rows.size() == static_cast<size_t>(kSamples));
  for (const auto& [row, count] : rows) CHECK(count == 2);
}

TEST_CASE("rows of a corrupt chunk left out by skip_corrupt_chunks take their fields along") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  WriteFieldFile(path, true);
  testing::CorruptChunk(path, 2);  // rows 32-47
  const std::vector<std::string> asked = {"a_int32", "a_float64", "caption"};
  LoaderOptions options = Options(asked, "sequential");
  options.batch_size = 10;  // batches that straddle the damaged chunk's ends
  options.skip_corrupt_chunks = true;
  Loader loader = Loader::Open(path, options);
  std::map<int64_t, int> rows;
  while (auto batch = loader.Next()) {
    for (int64_t i = 0; i < batch->size(); ++i) {
      const int64_t row = batch->indices()[static_cast<size_t>(i)];
      const std::vector<uint8_t> image = testing::FileImage(row, kShape);
      CHECK(std::equal(image.begin(), image.end(), batch->images().begin() + i * kShape.bytes()));
      CHECK(batch->labels()[static_cast<size_t>(i)] == row % 7);
    }
    for (int64_t row : CheckBatchFields(*batch, asked)) ++rows[row];
  }
  CHECK(loader.stats().corrupt_chunks_skipped == 1);
  for (int64_t row = 0; row < kSamples; ++row) {
    CAPTURE(row);
    const bool in_chunk = row >= 32 && row < 48;
    if (!in_chunk) CHECK(rows.count(row) == 1);
  }
}

// Rows 32-47 and 96-111: image chunks 2 and 6.
bool InDamagedChunk(int64_t row) { return (row >= 32 && row < 48) || (row >= 96 && row < 112); }

TEST_CASE(
    "with skip_corrupt_chunks a held field's damaged row leaves its chunk out, warned at open") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, kChunk, true, Compression::Parse("none"));
  testing::FlipFieldRowBit(path, "a_float32", 37, 4 * 10, kChunk);  // float32[5,2], chunk 2
  testing::OverwriteTextRow(path, "caption", 100, "not the caption written");  // chunk 6
  const std::vector<std::string> asked = {"a_float32", "caption", "blob", "a_int16"};
  LoaderOptions options = Options(asked, "sequential");
  options.batch_size = 10;  // batches that straddle the damaged chunks' ends
  {
    const Error error = CaughtError([&] { Loader::Open(path, options); });
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(),
                   "row 37 (chunk 2) of field a_float32 in " + path + ": checksum mismatch"));
    CHECK(!Contains(error.what(), "skip_corrupt_chunks"));
  }
  options.skip_corrupt_chunks = true;
  std::vector<std::string> warnings;
  options.on_warning = [&](const std::string& message) { warnings.push_back(message); };
  Loader loader = Loader::Open(path, options);
  REQUIRE(warnings.size() == 2);  // at open, before any batch
  CHECK(Contains(warnings[0], "skipping corrupt chunk 2 (row 37 (chunk 2) of field a_float32 in " +
                                  path + ": checksum mismatch"));
  CHECK(Contains(warnings[1], "skipping corrupt chunk 6 (row 100 (chunk 6) of field caption in " +
                                  path + ": checksum mismatch"));
  CHECK(Contains(warnings[1], "its rows are left out of every batch"));
  CHECK(loader.stats().corrupt_chunks_skipped == 2);
  for (int epoch = 0; epoch < 2; ++epoch) {
    CAPTURE(epoch);
    loader.SetEpoch(epoch);
    std::map<int64_t, int> rows;
    while (auto batch = loader.Next()) {
      CHECK(batch->size() > 0);
      for (int64_t i = 0; i < batch->size(); ++i) {
        const int64_t row = batch->indices()[static_cast<size_t>(i)];
        const std::vector<uint8_t> image = testing::FileImage(row, kShape);
        CHECK(std::equal(image.begin(), image.end(), batch->images().begin() + i * kShape.bytes()));
        CHECK(batch->labels()[static_cast<size_t>(i)] == row % 7);
      }
      for (int64_t row : CheckBatchFields(*batch, asked)) ++rows[row];  // the file's values
    }
    for (int64_t row = 0; row < kSamples; ++row) {
      CAPTURE(row);
      CHECK(rows.count(row) == (InDamagedChunk(row) ? 0u : 1u));
    }
  }
  CHECK(warnings.size() == 2);
  CHECK(loader.stats().corrupt_chunks_skipped == 2);
  CHECK(loader.stats().samples_skipped == 2 * 32);  // both chunks' rows, in each epoch
}

TEST_CASE("a held field none of whose rows is sound fails the open, skip_corrupt_chunks or not") {
  TempFolder folder;
  const std::string path = folder / "ruined.h5";
  testing::WriteFieldTestFile(path, 20, kShape, kChunk, true, Compression::Parse("none"));
  for (int64_t row = 0; row < 20; ++row) testing::FlipFieldRowBit(path, "a_int16", row, 6, kChunk);
  LoaderOptions options = Options({"caption", "a_int16"});
  options.skip_corrupt_chunks = true;
  const Error error = CaughtError([&] { Loader::Open(path, options); });
  CHECK(error.code() == ErrorCode::kCorrupt);
  CHECK(Contains(error.what(), "every one of the 20 rows of field a_int16 in " + path +
                                   " is damaged: row 0 (chunk 0) of field a_int16"));
  CHECK(Contains(error.what(), "this damage is to field a_int16 as a whole"));
}

// Every batch's rows in epochs 0 and 1 of `path` (their fields checked), read by one loader, or
// with `stop` >= 0 by one stopped after `stop` batches of epoch 1 and a new one resumed from
// its state.
std::vector<std::vector<int64_t>> BatchRows(const std::string& path, const LoaderOptions& options,
                                            int64_t stop = -1) {
  std::vector<std::vector<int64_t>> batches;
  std::optional<LoaderState> state;
  {
    Loader loader = Loader::Open(path, options);
    for (int epoch = 0; epoch < 2; ++epoch) {
      loader.SetEpoch(epoch);
      for (int64_t n = 0; epoch == 0 || stop < 0 || n < stop; ++n) {
        std::optional<Batch> batch = loader.Next();
        if (!batch) break;
        batches.push_back(CheckBatchFields(*batch, options.fields));
      }
    }
    if (stop < 0) return batches;
    state = loader.State();
  }  // stopped, as a trainer's job is, before the resumed one starts
  Loader resumed = Loader::Open(path, options);
  resumed.Restore(*state);
  while (auto batch = resumed.Next()) batches.push_back(CheckBatchFields(*batch, options.fields));
  return batches;
}

TEST_CASE("a held field's damaged row leaves out what a damaged image of its chunk would") {
  TempFolder folder;
  const std::string field_damaged = folder / "field_damaged.h5";
  const std::string image_damaged = folder / "image_damaged.h5";
  for (const std::string& path : {field_damaged, image_damaged}) {
    testing::WriteFieldTestFile(path, kSamples, kShape, kChunk, true, Compression::Parse("none"));
  }
  testing::FlipFieldRowBit(field_damaged, "a_float32", 37, 4 * 10, kChunk);  // chunk 2
  testing::OverwriteTextRow(field_damaged, "caption", 100, "not the caption written");
  testing::CorruptChunk(image_damaged, 2);
  testing::CorruptChunk(image_damaged, 6);
  LoaderOptions options = Options({"a_float32", "caption", "a_uint16"}, "random");
  options.batch_size = 10;
  options.echo = 2;
  options.skip_corrupt_chunks = true;
  for (const int world : {1, 2}) {
    for (int rank = 0; rank < world; ++rank) {
      CAPTURE(world);
      CAPTURE(rank);
      options.shard = {rank, world, false};
      const std::vector<std::vector<int64_t>> batches = BatchRows(field_damaged, options);
      CHECK(batches == BatchRows(image_damaged, options));     // the same rows in the same batches
      CHECK(batches == BatchRows(field_damaged, options, 3));  // and after a resume
      for (const std::vector<int64_t>& batch : batches) {
        for (int64_t row : batch) CHECK(!InDamagedChunk(row));
      }
    }
  }
}

TEST_CASE("normalized views resized between epochs carry the same fields") {
  const std::vector<std::string> asked = {"a_uint8", "a_bool", "caption"};
  LoaderOptions options = Options(asked);
  options.normalize = true;
  options.output.augment.random_resized_crop = {3, 3};
  options.output.augment.max_output_height = 4;
  options.output.augment.max_output_width = 4;
  options.output.augment.random_flip = true;
  Loader loader = Loader::Open(FieldFile(false), options);
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    if (epoch == 1) loader.SetOutputSize(4, 4);
    loader.SetEpoch(epoch);
    std::map<int64_t, int> rows;
    while (auto batch = loader.Next()) {
      CHECK(batch->image_tensor().shape[2] == 3 + epoch);
      for (int64_t row : CheckBatchFields(*batch, asked)) ++rows[row];
    }
    CHECK(rows.size() == static_cast<size_t>(kSamples));
  }
}

TEST_CASE("several augmented views of each sample, echoed, carry the sample's fields once") {
  const std::vector<std::string> asked = {"a_float32", "blob", "a_int64"};
  LoaderOptions options = Options(asked, "random");
  options.normalize = true;
  options.echo = 2;
  AugmentOptions global;
  global.random_resized_crop = {3, 3};
  global.random_flip = true;
  global.count = 2;
  AugmentOptions local = global;
  local.random_resized_crop = {2, 2};
  local.count = 3;
  options.output.views = {global, local};
  Loader loader = Loader::Open(FieldFile(true), options);
  std::map<int64_t, int> rows;
  while (auto batch = loader.Next()) {
    REQUIRE(batch->views() == 5);
    CHECK(batch->image_tensor(4).shape[0] == batch->size());
    CHECK(batch->field_tensor("a_float32").shape[0] == batch->size());
    for (int64_t row : CheckBatchFields(*batch, asked)) ++rows[row];
  }
  CHECK(rows.size() == static_cast<size_t>(kSamples));
  for (const auto& [row, count] : rows) CHECK(count == 2);
}

TEST_CASE("a served file's fields are read over http as the local file's are") {
  TempFolder folder;
  WriteFieldFile(folder / "train.h5", false);
  testing::HttpServer server({"nginx", folder.path()});
  const std::vector<std::string> asked = {"caption", "a_float32", "blob"};
  LoaderOptions options = Options(asked);
  options.shard = {1, 2, false};
  Loader loader = Loader::Open(server.Url("train.h5"), options);
  std::map<int64_t, int> rows;
  ReadChecked(loader, asked, rows);
  CHECK(rows.size() == static_cast<size_t>((kSamples + 1) / 2));
}

TEST_CASE("a batch holds its fields past its loader") {
  std::optional<Batch> batch;
  {
    Loader loader = Loader::Open(FieldFile(true), Options({"blob", "a_uint32"}));
    batch = loader.Next();
  }
  REQUIRE(batch);
  CheckBatchFields(*batch, {"blob", "a_uint32"});
  // The rows of an array field are the slot's, and the row of a bytes field the loader's
  // column: neither has an owner of its own (only masks and boxes do), the Batch keeps them.
  CHECK(batch->field_owner(batch->field_index("blob")) == nullptr);
  CHECK(batch->field_owner(batch->field_index("a_uint32")) == nullptr);
}

TEST_CASE("fields asked wrongly are refused, naming the fields there are") {
  const Error unknown = CaughtError([] {
    Loader::Open(FieldFile(true), Options({"a_uint8", "attrs"}));
  });
  CHECK(unknown.code() == ErrorCode::kNotFound);
  CHECK(Contains(unknown.what(), "LoaderOptions.fields"));
  CHECK(Contains(unknown.what(), "attrs"));
  CHECK(Contains(unknown.what(), "a_uint8 (uint8[40])"));
  CHECK(Contains(unknown.what(), "caption (text)"));

  const Error twice = CaughtError([] {
    Loader::Open(FieldFile(true), Options({"blob", "a_int8", "blob"}));
  });
  CHECK(twice.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(twice.what(), "blob twice"));

  TempFolder folder;
  const std::string plain = folder / "plain.h5";
  testing::WriteH5feedFile(plain, 20, kShape, 8, Compression::Parse("none"));
  const Error none = CaughtError([&] { Loader::Open(plain, Options({"attrs"})); });
  CHECK(none.code() == ErrorCode::kNotFound);
  CHECK(Contains(none.what(), "it has no fields"));

  Loader loader = Loader::Open(FieldFile(true), Options({"caption", "a_uint8"}));
  const std::optional<Batch> batch = loader.Next();
  REQUIRE(batch);
  CHECK(Contains(CaughtError([&] { batch->field_tensor("caption"); }).what(), "field_text"));
  const Error not_asked = CaughtError([&] { batch->field_index("blob"); });
  CHECK(not_asked.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(not_asked.what(), "caption (text), a_uint8 (uint8[40])"));
  CHECK(CaughtError([&] { batch->field_spec(2); }).code() == ErrorCode::kInvalidArgument);
  CHECK(CaughtError([&] { batch->field_bytes(0, batch->size()); }).code() ==
        ErrorCode::kInvalidArgument);
}

TEST_CASE("fields count in the slots' memory, and the stats say so") {
  Loader without = Loader::Open(FieldFile(true), Options({}));
  Loader with = Loader::Open(FieldFile(true), Options({"a_uint8", "a_float32", "caption"}));
  // Two array regions of 12 rows each (40 and 40 bytes a row), each on its 256-byte boundary.
  CHECK(with.stats().slot_bytes - without.stats().slot_bytes == 4 * (512 + 512));
}

}  // namespace
}  // namespace h5feed
