// The chunk source: which one a location gets, and what each does with a chunk. Files are
// written with h5feed::Writer; the URL is served by Debian's nginx.

#include "source/chunk_source.h"

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cache/chunk_cache.h"
#include "index/dataset_index.h"
#include "lib/index/index_test_files.h"
#include "source/open_chunk_source.h"
#include "source/read_ahead.h"
#include "support/http_server.h"
#include "support/temp_folder.h"

namespace h5feed::source {
namespace {

using testing::HttpServer;
using testing::TempFolder;

constexpr ImageShape kShape{64, 64, 3};  // chunks of 192 KiB: most lie past a URL's head
constexpr int64_t kSamples = 100;
constexpr int64_t kChunk = 16;

// Every chunk of `source` loaded through a real cache, compared with the pixels written.
void CheckEveryChunk(ChunkSource& source, const index::DatasetIndex& dataset,
                     const std::vector<uint8_t>& pixels) {
  cache::ChunkCache cache(source.chunk_bytes(), source.chunk_bytes(), cache::EvictionPolicy::kLru,
                          [&](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
                            return source.Load(chunk, target);
                          });
  for (int64_t chunk = 0; chunk < dataset.chunk_count(); ++chunk) {
    const cache::ChunkCache::Ref ref = cache.Get(chunk, chunk);
    const int64_t first = chunk * kChunk * kShape.bytes();
    const int64_t bytes = dataset.samples_in_chunk(chunk) * kShape.bytes();
    CAPTURE(chunk);
    CHECK(std::memcmp(ref.data().data(), pixels.data() + first, static_cast<size_t>(bytes)) == 0);
  }
  CHECK(cache.stats().failed_loads == 0);
}

index::DatasetIndex Index(const std::string& location) {
  return index::OpenDatasetIndex(location, index::IndexOptions{});
}

TEST_CASE("a path gets a local source: uncompressed chunks are used where they lie") {
  TempFolder folder;
  const std::string raw = folder.path() + "/raw.h5";
  const std::string zstd = folder.path() + "/zstd.h5";
  const std::vector<uint8_t> pixels = testing::WriteH5feedFile(
      raw, Compression{Compression::Kind::kNone}, kSamples, kChunk, kShape);
  testing::WriteH5feedFile(zstd, Compression{}, kSamples, kChunk, kShape);  // zstd
  for (const std::string& path : {raw, zstd}) {
    CAPTURE(path);
    const index::DatasetIndex dataset = Index(path);
    const std::unique_ptr<ChunkSource> source =
        OpenChunkSource(dataset, {.rows_checked_by_caller = true});
    CHECK(source->LoadsInPlace() == (path == raw));
    CHECK(source->read_ahead() == nullptr);
    // Images with their own checksums are checked as they are gathered, not at the load.
    CHECK(source->ChecksRows());
    CheckEveryChunk(*source, dataset, pixels);
    // A reader without a gather of its own (verify, merge) checks whole chunks.
    CHECK_FALSE(OpenChunkSource(dataset, {})->ChecksRows());
  }
  const index::DatasetIndex dataset = Index(raw);
  CHECK_FALSE(OpenChunkSource(dataset, {.map_file = false})->LoadsInPlace());
}

TEST_CASE("a URL gets a remote source: bytes are fetched ahead, chunks checked whole") {
  TempFolder folder;
  const std::string path = folder.path() + "/served.h5";
  const std::vector<uint8_t> pixels = testing::WriteH5feedFile(
      path, Compression{Compression::Kind::kNone}, kSamples, kChunk, kShape);
  HttpServer server({"nginx", folder.path()});
  const index::DatasetIndex dataset = Index(server.Url("served.h5"));
  const std::unique_ptr<ChunkSource> source =
      OpenChunkSource(dataset, {.fetch_ahead_bytes = 1 << 20});
  CHECK_FALSE(source->LoadsInPlace());
  ReadAhead* ahead = source->read_ahead();
  REQUIRE(ahead != nullptr);
  // A remote chunk is checked as a whole at its load, where bad bytes can still be fetched
  // again, not image by image later, even when the caller offers to check rows.
  CHECK_FALSE(OpenChunkSource(dataset, {.rows_checked_by_caller = true})->ChecksRows());
  // Chunk 4 lies past the object's first bytes, which were read at open and are kept.
  CHECK(ahead->Fetch(4) == io::Ahead::kStarted);
  CHECK(ahead->Fetch(4) == io::Ahead::kHeld);
  CHECK(ahead->Fetch(0) == io::Ahead::kHeld);
  CheckEveryChunk(*source, dataset, pixels);
}

TEST_CASE("a chunk's stored bytes are read as they lie, and only where chunks have addresses") {
  TempFolder folder;
  const std::string path = folder.path() + "/zstd.h5";
  testing::WriteH5feedFile(path, Compression{}, kSamples, kChunk, kShape);
  const index::DatasetIndex dataset = Index(path);
  const std::unique_ptr<ChunkSource> source = OpenChunkSource(dataset, {});
  std::vector<uint8_t> stored;
  source->ReadStored(2, stored);
  CHECK(stored.size() == dataset.chunks[2].stored_bytes);
  // A zstd frame, whose magic number opens it (RFC 8878).
  REQUIRE(stored.size() > 4);
  CHECK(std::vector<uint8_t>(stored.begin(), stored.begin() + 4) ==
        std::vector<uint8_t>{0x28, 0xB5, 0x2F, 0xFD});
  index::DatasetIndex through_hdf5 = dataset;
  through_hdf5.read_path = index::ReadPath::kHdf5Chunk;
  through_hdf5.chunks.clear();
  const std::unique_ptr<ChunkSource> other = OpenChunkSource(through_hdf5, {});
  CHECK_THROWS_AS(other->ReadStored(2, stored), Error);
}

}  // namespace
}  // namespace h5feed::source
