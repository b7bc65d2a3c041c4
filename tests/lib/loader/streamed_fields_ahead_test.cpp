// Streamed fields read from the disk as the images are (loader/streamed_fields.h): the image
// chunks the walker names ahead bring their field chunks' bytes into the page cache with them,
// a direct run reads the field chunks with O_DIRECT too (the file stays out of the page cache)
// and delivers what a run holding the field delivers, and a file written before field chunk
// tables streams its fields through HDF5 as before; and over http a field chunk corrupted on
// its way is fetched again, as an image chunk is. White-box: StreamedFields and a field's chunk
// source over real files (and Debian's nginx behind tests/support/fault_proxy.py), and whole
// Loader runs.

#include "loader/streamed_fields.h"

#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/loader.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index/dataset_index.h"
#include "index/field_chunk_index.h"
#include "lib/loader/field_test_file.h"
#include "source/open_chunk_source.h"
#include "source/read_ahead.h"
#include "support/http_server.h"
#include "support/page_cache.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::TempFolder;

constexpr int64_t kSamples = 320;
constexpr int64_t kChunk = 16;
const ImageShape kShape{32, 32, 3};  // 3 KiB images, chunks of 48 KiB
// 4 KiB a row, chunks of 64 KiB: most of the file.
const FieldSpec kEmbedding{"emb", FieldKind::kArray, FieldType::kFloat32, {1024}, {}};

// An uncompressed file of kSamples images with the field kEmbedding, its chunks beside theirs;
// `tables`: with the field's chunk table, else without (a file written before them).
std::string WriteFile(const std::string& path, bool tables = true) {
  testing::WriteFieldTestFile(path, kSamples, kShape, kChunk, true, Compression::Parse("none"),
                              {kEmbedding});
  if (!tables) {
    auto lock = hdf5::Lock();
    hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(H5Ldelete(file.get(), "field_chunk_index", H5P_DEFAULT) >= 0);
  }
  return path;
}

// The share of the page cache's pages of field chunk `chunk` of `field`.
double FieldChunkResident(const std::string& path, const index::DatasetIndex& field,
                          int64_t chunk) {
  const index::ChunkLocation& at = field.chunks[static_cast<size_t>(chunk)];
  return testing::ResidentShare(path, at.address / 4096,
                                (at.address + at.stored_bytes + 4095) / 4096 - at.address / 4096);
}

LoaderOptions Options(bool streamed) {
  LoaderOptions options;
  options.batch_size = 24;
  options.sampler = SamplerOptions::Parse("chunks:4");
  options.seed = 3;
  options.threads = 2;
  options.fields = {kEmbedding.name};
  options.held_field_bytes = streamed ? 1 : 0;
  options.open_probe = false;
  options.on_warning = [](const std::string&) {};
  return options;
}

// Every batch of two epochs as bytes (images, indices, the field's rows), each row's field
// checked against its value.
std::vector<std::vector<uint8_t>> ReadTwoEpochs(const std::string& path,
                                                const LoaderOptions& options) {
  Loader loader = Loader::Open(path, options);
  CHECK(loader.streamed_fields() == (options.held_field_bytes == 1 ? std::vector<std::string>{"emb"}
                                                                   : std::vector<std::string>{}));
  std::vector<std::vector<uint8_t>> batches;
  for (int epoch = 0; epoch < 2; ++epoch) {
    loader.SetEpoch(epoch);
    while (std::optional<Batch> batch = loader.Next()) {
      std::vector<uint8_t> bytes(batch->images().begin(), batch->images().end());
      for (int64_t i = 0; i < batch->size(); ++i) {
        const int64_t row = batch->indices()[static_cast<size_t>(i)];
        const std::span<const uint8_t> value = batch->field_bytes(0, i);
        CHECK(std::vector<uint8_t>(value.begin(), value.end()) ==
              testing::TestFieldRow(kEmbedding, row));
        bytes.insert(bytes.end(), value.begin(), value.end());
        bytes.push_back(static_cast<uint8_t>(row));
      }
      batches.push_back(std::move(bytes));
    }
  }
  return batches;
}

TEST_CASE("image chunks fetched ahead bring their streamed field chunks with them") {
  TempFolder folder;
  const std::string path = WriteFile(folder / "cold.h5");
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, {});
  const std::optional<index::DatasetIndex> field = index::FieldChunkIndex(dataset, kEmbedding);
  REQUIRE(field);
  REQUIRE(field->read_path == index::ReadPath::kStoredTable);
  const std::unique_ptr<source::ChunkSource> images = source::OpenChunkSource(
      dataset, {.rows_checked_by_caller = true, .fetch_ahead_bytes = 1 << 20});
  loader::StreamedFields streamed(dataset, *images, dataset.fields, Options(true));
  REQUIRE(streamed.Streams("emb"));
  // Just written: the page cache holds the file, and nothing would wait on the disk.
  CHECK(streamed.read_ahead() == nullptr);
  if (!testing::DropFromPageCache(path)) {
    MESSAGE("the page cache keeps " << path << " (tmpfs?): nothing to read ahead here");
    return;
  }
  source::ReadAhead* ahead = streamed.read_ahead();
  REQUIRE(ahead != nullptr);
  CHECK(ahead != images->read_ahead());  // the field's source reads ahead beside the images'
  CHECK(FieldChunkResident(path, *field, 5) == 0.0);
  CHECK(ahead->Fetch(5) == io::Ahead::kStarted);
  for (int wait = 0; wait < 500 && FieldChunkResident(path, *field, 5) < 1.0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(FieldChunkResident(path, *field, 5) == 1.0);
  CHECK(FieldChunkResident(path, *field, 15) == 0.0);  // a chunk nobody named
  CHECK(ahead->Fetch(5) == io::Ahead::kHeld);
  ahead->DropAll();

  // Without the table the field is read through HDF5, and only the images read ahead.
  const std::string untabled = WriteFile(folder / "untabled.h5", false);
  const index::DatasetIndex old = index::OpenDatasetIndex(untabled, {});
  const std::unique_ptr<source::ChunkSource> old_images =
      source::OpenChunkSource(old, {.rows_checked_by_caller = true, .fetch_ahead_bytes = 1 << 20});
  loader::StreamedFields old_streamed(old, *old_images, old.fields, Options(true));
  REQUIRE(old_streamed.Streams("emb"));
  REQUIRE(testing::DropFromPageCache(untabled));
  CHECK(old_streamed.read_ahead() == old_images->read_ahead());
}

TEST_CASE("a direct run reads streamed field chunks directly and delivers the held run's batches") {
  TempFolder folder;
  const std::string path = WriteFile(folder / "direct.h5");
  if (!testing::ReadsDirect(path) || !testing::DropFromPageCache(path)) {
    MESSAGE("O_DIRECT or dropping pages is not available in " << folder.path());
    return;
  }
  LoaderOptions direct = Options(true);
  direct.direct = true;
  const std::vector<std::vector<uint8_t>> streamed = ReadTwoEpochs(path, direct);
  // HDF5 reads the metadata at open (the chunk tables, labels, checksums) through the page
  // cache itself, and the kernel reads ahead around its first reads: the first 49 pages of the
  // file's 480 (a buffered run leaves all of them); the field's chunks are 60% of it.
  CHECK(testing::ResidentShare(path) < 0.15);
  const std::vector<std::vector<uint8_t>> held = ReadTwoEpochs(path, Options(false));
  CHECK(streamed.size() == 28u);  // 14 batches an epoch
  CHECK(streamed == held);
}

TEST_CASE("a file written before field chunk tables streams its fields through HDF5") {
  TempFolder folder;
  const std::string path = WriteFile(folder / "untabled.h5", false);
  const std::vector<std::vector<uint8_t>> streamed = ReadTwoEpochs(path, Options(true));
  CHECK(streamed.size() == 28u);
  CHECK(streamed == ReadTwoEpochs(path, Options(false)));
}

TEST_CASE("a URL's field chunks are read by address: one corrupted on its way is fetched again") {
  // The field's chunk table gives its chunks' addresses, so a field chunk is fetched and
  // checked whole as an image chunk is; through HDF5 a corrupted response would have been
  // decoded (or refused) as it came.
  TempFolder folder;
  const std::string path = WriteFile(folder / "served.h5");
  testing::HttpServer proxy({"proxy", folder.path()});
  const index::DatasetIndex dataset = index::OpenDatasetIndex(proxy.Url("served.h5"), {});
  const std::optional<index::DatasetIndex> field = index::FieldChunkIndex(dataset, kEmbedding);
  REQUIRE(field);
  CHECK(field->read_path == index::ReadPath::kStoredTable);
  const std::unique_ptr<source::ChunkSource> source =
      source::OpenChunkSource(*field, {.rows_checked_by_caller = true});
  CHECK_FALSE(source->ChecksRows());  // checked whole, where bad bytes can be fetched again
  // Chunk 5 lies far past the object's first bytes, kept from the open: its read is the next
  // response, and the only one corrupted.
  proxy.Control("faults=corrupt:1&limit=1");
  std::vector<uint8_t> decoded(static_cast<size_t>(source->chunk_bytes()));
  source->Read(5, decoded);
  const std::string counts = proxy.Control("");
  INFO(counts);
  CHECK(counts.find("\"corrupt\": 1") != std::string::npos);
  for (int64_t j = 0; j < kChunk; ++j) {
    const std::vector<uint8_t> row = testing::TestFieldRow(kEmbedding, 5 * kChunk + j);
    CAPTURE(j);
    CHECK(std::equal(row.begin(), row.end(),
                     decoded.begin() + static_cast<std::ptrdiff_t>(j * kEmbedding.row_bytes())));
  }
}

}  // namespace
}  // namespace h5feed
