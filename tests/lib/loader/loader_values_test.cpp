// StatsValue and DatasetValue: the keys of Loader.stats() and Loader.dataset, spelled once.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/loader.h"

namespace h5feed {
namespace {

std::vector<std::string> Keys(const ReportValue& value) {
  std::vector<std::string> keys;
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) keys.push_back(entry.first);
  return keys;
}

const ReportValue& Field(const ReportValue& value, const std::string& key) {
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) {
    if (entry.first == key) return entry.second;
  }
  FAIL("no key " << key);
  return value;
}

TEST_CASE("the loader's counters keep LoaderStats' names and order") {
  LoaderStats stats;
  stats.chunk_reads = 19;
  stats.wait_seconds = 0.5;
  const ReportValue value = StatsValue(stats);
  CHECK(Keys(value) == std::vector<std::string>{
                           "batches", "samples", "chunk_reads", "chunk_reads_ahead", "cache_hits",
                           "cache_misses", "bytes_read", "bytes_decoded", "corrupt_chunks_skipped",
                           "samples_skipped", "wait_seconds", "slot_bytes"});
  CHECK(Field(value, "chunk_reads") == ReportValue(19));
  CHECK(Field(value, "wait_seconds") == ReportValue(0.5));
}

TEST_CASE("the dataset's description has its shape as [H, W, C] and every chunk's first row") {
  DatasetInfo info;
  info.path = "flat.h5";
  info.samples = 5;
  info.image_shape = {12, 10, 3};
  info.chunks = 2;
  info.own_size = true;
  info.chunk_first_rows = {0, 3, 5};
  info.classes = {"cat", "dog"};
  const ReportValue value = DatasetValue(info);
  CHECK(Keys(value) == std::vector<std::string>{"path", "samples", "image_shape", "chunk_samples",
                                                "chunks", "own_size", "chunk_first_rows",
                                                "classes"});
  CHECK(Field(value, "image_shape") == ReportValue(ReportValue::List{12, 10, 3}));
  CHECK(Field(value, "chunk_first_rows") == ReportValue(ReportValue::List{0, 3, 5}));
  CHECK(Field(value, "classes") == ReportValue(ReportValue::List{"cat", "dog"}));
}

}  // namespace
}  // namespace h5feed
