// Array fields streamed with the image chunks (LoaderOptions::held_field_bytes,
// loader/streamed_fields.h) rather than held whole: on the test files of loader_fields_test
// (every element type and several shapes, compressed and not), a loader whose held_field_bytes
// leaves no room streams every array field, keeps its bytes and text fields held, and delivers
// batches equal byte for byte to those of a loader that holds every field (same seed, images,
// labels, indices and fields), over several epochs with a cache too small for the file (chunks
// evicted and read again), under 2 ranks and after a resume on 3, with echo 2, and from a file
// served over http. A damaged row of a streamed field is named as a held field's is, and with
// skip_corrupt_chunks its chunk's rows are left out. A file of images at their own size, whose
// fields are not chunked with its images: tests/python/test_fields.py.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
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

namespace h5feed {
namespace {

using testing::AllTestFieldNames;
using testing::CaughtError;
using testing::CheckBatchFields;
using testing::TempFolder;

constexpr int64_t kSamples = 157;
constexpr int64_t kChunk = 16;
const ImageShape kShape{4, 4, 3};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The test file, compressed (zstd: its fields' chunks are decoded) or not (images mapped in
// place, fields read beside them).
const std::string& FieldFile(bool compressed) {
  static TempFolder folder;
  static const std::string zstd = [] {
    std::string p = folder / "zstd.h5";
    testing::WriteFieldTestFile(p, kSamples, kShape, kChunk, true);
    return p;
  }();
  static const std::string none = [] {
    std::string p = folder / "none.h5";
    testing::WriteFieldTestFile(p, kSamples, kShape, kChunk, true, Compression::Parse("none"));
    return p;
  }();
  return compressed ? zstd : none;
}

std::vector<std::string> ArrayFieldNames() {
  std::vector<std::string> names;
  for (const FieldSpec& spec : testing::TestFieldSpecs()) {
    if (spec.kind == FieldKind::kArray) names.push_back(spec.name);
  }
  return names;
}

// The bytes of one row of every array field.
int64_t ArrayRowBytes() {
  int64_t bytes = 0;
  for (const FieldSpec& spec : testing::TestFieldSpecs()) bytes += spec.row_bytes();
  return bytes;
}

LoaderOptions Options(bool streamed, const std::string& sampler = "chunks:2") {
  LoaderOptions options;
  options.batch_size = 12;
  options.sampler = SamplerOptions::Parse(sampler);
  options.seed = 5;
  options.threads = 2;
  options.slots = 4;
  options.fields = AllTestFieldNames();
  options.held_field_bytes = streamed ? 1 : 0;  // 1: no field fits; 0: a quarter of memory
  // Three chunks of images and streamed fields: the file's ten chunks are evicted and read
  // again.
  options.cache_bytes = 3 * kChunk * (kShape.bytes() + ArrayRowBytes());
  options.open_probe = false;
  options.on_warning = [](const std::string&) {};
  return options;
}

// Everything a batch delivers, as bytes: images, labels, indices and every field's rows.
std::vector<uint8_t> Delivered(const Batch& batch) {
  std::vector<uint8_t> out(batch.images().begin(), batch.images().end());
  auto append = [&out](const void* data, size_t bytes) {
    const auto* begin = static_cast<const uint8_t*>(data);
    out.insert(out.end(), begin, begin + bytes);
  };
  append(batch.labels().data(), batch.labels().size_bytes());
  append(batch.indices().data(), batch.indices().size_bytes());
  for (int k = 0; k < batch.fields(); ++k) {
    for (int64_t i = 0; i < batch.size(); ++i) {
      const std::span<const uint8_t> row = batch.field_bytes(k, i);
      append(row.data(), row.size());
    }
  }
  return out;
}

// Every batch of `epochs` epochs, each checked against the file (CheckBatchFields).
std::vector<std::vector<uint8_t>> ReadEpochs(Loader& loader, int epochs) {
  std::vector<std::vector<uint8_t>> batches;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    loader.SetEpoch(epoch);
    while (auto batch = loader.Next()) {
      CheckBatchFields(*batch, AllTestFieldNames());
      batches.push_back(Delivered(*batch));
    }
  }
  return batches;
}

TEST_CASE("streamed array fields deliver the batches held ones do, byte for byte") {
  for (const bool compressed : {true, false}) {
    for (const std::string sampler : {"sequential", "chunks:2", "random"}) {
      CAPTURE(compressed);
      CAPTURE(sampler);
      Loader held = Loader::Open(FieldFile(compressed), Options(false, sampler));
      Loader streamed = Loader::Open(FieldFile(compressed), Options(true, sampler));
      CHECK(held.streamed_fields().empty());
      std::vector<std::string> names = streamed.streamed_fields();
      std::sort(names.begin(), names.end());
      std::vector<std::string> arrays = ArrayFieldNames();
      std::sort(arrays.begin(), arrays.end());
      CHECK(names == arrays);  // bytes and text stay held
      CHECK(streamed.fields() == held.fields());
      CHECK(ReadEpochs(streamed, 3) == ReadEpochs(held, 3));
      // Every chunk read brought its rows of every streamed field along.
      const LoaderStats stats = streamed.stats();
      CHECK(stats.chunk_reads > 2 * 10);  // the cache holds 3 of 10: chunks read again
      CHECK(stats.bytes_decoded ==
            stats.chunk_reads * static_cast<uint64_t>(kChunk * (kShape.bytes() + ArrayRowBytes())));
      CHECK(held.stats().bytes_decoded ==
            held.stats().chunk_reads * static_cast<uint64_t>(kChunk * kShape.bytes()));
    }
  }
}

TEST_CASE("streamed fields follow their rows under 2 ranks, after a resume on 3, with echo 2") {
  std::map<int64_t, int> rows;
  std::vector<Loader> old_job;
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions options = Options(true);
    options.shard = {rank, 2, false};
    old_job.push_back(Loader::Open(FieldFile(true), options));
    old_job.back().SetEpoch(2);
    for (int n = 0; n < 3; ++n) {
      std::optional<Batch> batch = old_job.back().Next();
      REQUIRE(batch);
      for (int64_t row : CheckBatchFields(*batch, AllTestFieldNames())) ++rows[row];
    }
  }
  const LoaderState state = old_job[0].State();
  old_job.clear();
  for (int rank = 0; rank < 3; ++rank) {
    LoaderOptions options = Options(true);
    options.shard = {rank, 3, false};
    Loader loader = Loader::Open(FieldFile(true), options);
    loader.Restore(state);
    while (auto batch = loader.Next()) {
      for (int64_t row : CheckBatchFields(*batch, AllTestFieldNames())) ++rows[row];
    }
  }
  CHECK(rows.size() == static_cast<size_t>(kSamples));

  LoaderOptions options = Options(true);
  options.echo = 2;
  Loader echoed = Loader::Open(FieldFile(true), options);
  std::map<int64_t, int> copies;
  while (auto batch = echoed.Next()) {
    for (int64_t row : CheckBatchFields(*batch, AllTestFieldNames())) ++copies[row];
  }
  CHECK(copies.size() == static_cast<size_t>(kSamples));
  for (const auto& [row, count] : copies) CHECK(count == 2);
}

TEST_CASE("a served file's fields stream over http as the local file's do") {
  TempFolder folder;
  testing::WriteFieldTestFile(folder / "train.h5", kSamples, kShape, kChunk, false);
  testing::HttpServer server({"nginx", folder.path()});
  Loader loader = Loader::Open(server.Url("train.h5"), Options(true));
  CHECK(!loader.streamed_fields().empty());
  std::map<int64_t, int> rows;
  while (auto batch = loader.Next()) {
    for (int64_t row : CheckBatchFields(*batch, AllTestFieldNames())) ++rows[row];
  }
  CHECK(rows.size() == static_cast<size_t>(kSamples));
}

TEST_CASE("a damaged row of a streamed field is named as a held one's, or its chunk skipped") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, kChunk, true, Compression::Parse("none"));
  // float32[5,2]: chunk 2 holds rows 32-47.
  testing::FlipFieldRowBit(path, "a_float32", 37, 4 * 10, kChunk);
  LoaderOptions options = Options(true, "sequential");
  options.fields = {"a_float32", "caption"};
  {
    Loader loader = Loader::Open(path, options);
    REQUIRE(loader.streamed_fields() == std::vector<std::string>{"a_float32"});
    const Error error = CaughtError([&] {
      while (loader.Next()) {}
    });
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(Contains(error.what(),
                   "row 37 (chunk 2) of field a_float32 in " + path + ": checksum mismatch"));
  }
  options.skip_corrupt_chunks = true;
  Loader loader = Loader::Open(path, options);
  std::map<int64_t, int> rows;
  while (auto batch = loader.Next()) {
    for (int64_t row : CheckBatchFields(*batch, options.fields)) ++rows[row];
  }
  CHECK(loader.stats().corrupt_chunks_skipped == 1);
  for (int64_t row = 0; row < kSamples; ++row) {
    CHECK(rows.count(row) == (row >= 32 && row < 48 ? 0u : 1u));
  }
}

TEST_CASE("held_field_bytes below zero is refused, naming the option") {
  LoaderOptions options = Options(true);
  options.held_field_bytes = -1;
  const Error error = CaughtError([&] { Loader::Open(FieldFile(true), options); });
  CHECK(error.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(error.what(), "held_field_bytes"));
}

}  // namespace
}  // namespace h5feed
