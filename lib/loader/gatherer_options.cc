// GathererOptions (gatherer_options.h).

#include "loader/gatherer_options.h"

#include <algorithm>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "loader/own_size_masks.h"

namespace h5feed::loader {
namespace {

// The gatherer checks each sample as it copies it when the file has per-sample checksums (the
// reader then skips the chunk checksum): the copy finds the sample in the cache.
pipeline::BatchGatherer::RowCheck RowCheck(const source::ChunkSource& source) {
  if (!source.ChecksRows()) return nullptr;
  return [&source](int64_t row, std::span<const uint8_t> sample) { source.VerifyRow(row, sample); };
}

// The image chunks holding the held fields' damaged rows, ascending, each once: what it is
// warned of names the first of them (its row, field and file) and counts the others.
std::vector<pipeline::BatchGatherer::CorruptChunk> CorruptChunksOf(const BatchFields& fields) {
  std::vector<const index::DamagedFieldRow*> damaged;
  for (const index::DamagedFieldRow& row : fields.damaged_rows) damaged.push_back(&row);
  std::stable_sort(damaged.begin(), damaged.end(), [](const auto* a, const auto* b) {
    return std::tie(a->chunk, a->row) < std::tie(b->chunk, b->row);
  });
  std::vector<pipeline::BatchGatherer::CorruptChunk> chunks;
  for (size_t i = 0; i < damaged.size();) {
    size_t end = i;
    while (end < damaged.size() && damaged[end]->chunk == damaged[i]->chunk) ++end;
    std::string what = damaged[i]->problem;
    if (end - i > 1) what += fmt::format("; and {} more damaged field rows in it", end - i - 1);
    chunks.push_back({damaged[i]->chunk, std::move(what)});
    i = end;
  }
  return chunks;
}

}  // namespace

pipeline::BatchGatherer::Options GathererOptions(
    const LoaderOptions& options, const index::DatasetIndex& dataset, const ReadingPlan& reading,
    const source::ChunkSource& source,
    const std::shared_ptr<const transform::OutputViews>& run_views,
    const std::shared_ptr<const BatchFields>& fields, bool device, const StreamedFields& streamed) {
  return {options.skip_corrupt_chunks,
          options.on_warning,
          RowCheck(source),
          SampleMakerOf(reading, dataset, run_views),
          SlotArrayFields(*fields, device, streamed),
          OwnSizeMaskMakers(fields, reading.gathered, run_views, device),
          CorruptChunksOf(*fields)};
}

}  // namespace h5feed::loader
