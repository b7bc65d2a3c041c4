// The local chunk source's reading ahead and O_DIRECT: chunks named ahead of their loads are
// read by the file's own threads, and load as any others do; a direct source hands over the
// buffers chunks were read into and leaves the page cache alone.

#include "source/local_chunk_source.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cache/chunk_cache.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "lib/index/index_test_files.h"
#include "source/open_chunk_source.h"
#include "source/read_ahead.h"
#include "support/page_cache.h"
#include "support/temp_folder.h"

namespace h5feed::source {
namespace {

using testing::TempFolder;

constexpr ImageShape kShape{64, 64, 3};  // chunks of 192 KiB
constexpr int64_t kSamples = 100;
constexpr int64_t kChunk = 16;

// Every chunk of `source` loaded through a real cache of two chunks, each compared with the
// pixels written; `ahead` told of every chunk first, as the walker would.
void CheckEveryChunk(ChunkSource& source, const index::DatasetIndex& dataset,
                     const std::vector<uint8_t>& pixels, ReadAhead* ahead) {
  cache::ChunkCache cache(source.chunk_bytes(), 2 * source.chunk_bytes(),
                          cache::EvictionPolicy::kLru,
                          [&](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
                            return source.Load(chunk, target);
                          });
  int64_t fetched = 0;
  for (int64_t chunk = 0; chunk < dataset.chunk_count(); ++chunk) {
    if (ahead) {
      while (fetched < dataset.chunk_count() && ahead->Fetch(fetched) != io::Ahead::kFull) {
        ++fetched;
      }
    }
    const cache::ChunkCache::Ref ref = cache.Get(chunk, chunk);
    const int64_t first = chunk * kChunk * kShape.bytes();
    const int64_t bytes = dataset.samples_in_chunk(chunk) * kShape.bytes();
    CAPTURE(chunk);
    CHECK(std::memcmp(ref.data().data(), pixels.data() + first, static_cast<size_t>(bytes)) == 0);
  }
  CHECK(cache.stats().failed_loads == 0);
}

TEST_CASE("a local source reads ahead in its own file while the page cache lacks it") {
  TempFolder folder;
  const std::string path = folder / "raw.h5";
  testing::WriteH5feedFile(path, Compression{Compression::Kind::kNone}, kSamples, kChunk, kShape);
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, index::IndexOptions{});
  const std::unique_ptr<ChunkSource> source =
      OpenChunkSource(dataset, {.fetch_ahead_bytes = 1 << 20});
  // Just written: the page cache holds it, and nothing would wait on the disk.
  CHECK(source->read_ahead() == nullptr);
  if (!testing::DropFromPageCache(path)) {
    MESSAGE("the page cache keeps " << path << " (tmpfs?): nothing to read ahead here");
    return;
  }
  ReadAhead* ahead = source->read_ahead();
  REQUIRE(ahead != nullptr);
  CHECK(ahead->Fetch(3) == io::Ahead::kStarted);
  CHECK(ahead->Fetch(3) == io::Ahead::kHeld);
  ahead->Drop(3);
  CHECK(ahead->Fetch(3) == io::Ahead::kStarted);
  ahead->DropAll();
  // A file the caller opened (a test's faulty one) is read as it is: no read-ahead.
  const std::unique_ptr<ChunkSource> over =
      ChunkSourceOver(dataset, io::OpenPosixFile(path), {.fetch_ahead_bytes = 1 << 20});
  CHECK(over->read_ahead() == nullptr);
}

TEST_CASE("chunks read ahead load as any others, through the page cache and direct") {
  TempFolder folder;
  const std::string raw = folder / "raw.h5";
  const std::string zstd = folder / "zstd.h5";
  const std::vector<uint8_t> pixels = testing::WriteH5feedFile(
      raw, Compression{Compression::Kind::kNone}, kSamples, kChunk, kShape);
  testing::WriteH5feedFile(zstd, Compression{}, kSamples, kChunk, kShape);
  for (const std::string& path : {raw, zstd}) {
    for (bool direct : {false, true}) {
      for (bool map_file : {true, false}) {
        CAPTURE(path);
        CAPTURE(direct);
        CAPTURE(map_file);
        if (direct && !testing::ReadsDirect(path)) continue;
        const index::DatasetIndex dataset = index::OpenDatasetIndex(path, index::IndexOptions{});
        const std::unique_ptr<ChunkSource> source =
            OpenChunkSource(dataset, {.rows_checked_by_caller = true,
                                      .map_file = map_file,
                                      .direct = direct,
                                      .fetch_ahead_bytes = 600 << 10});
        // A direct file's uncompressed chunks are handed over in their buffers, mapped or not.
        CHECK(source->LoadsInPlace() == (path == raw && (map_file || direct)));
        const bool dropped = testing::DropFromPageCache(path);
        ReadAhead* ahead = source->read_ahead();
        CHECK((ahead != nullptr) == (dropped || direct));
        CheckEveryChunk(*source, dataset, pixels, ahead);
        if (direct && dropped) {
          // Only HDF5's own reads at open (metadata) went through the page cache.
          const uint64_t first_page = dataset.chunks[0].address / 4096;
          const uint64_t last_page =
              (dataset.chunks.back().address + dataset.chunks.back().stored_bytes) / 4096;
          CHECK(testing::ResidentShare(path, first_page, last_page - first_page) < 0.05);
        }
      }
    }
  }
}

}  // namespace
}  // namespace h5feed::source
