// GathererOptions (gatherer_options.h).

#include "loader/gatherer_options.h"

#include <span>

#include "loader/own_size_masks.h"

namespace h5feed::loader {
namespace {

// The gatherer checks each sample as it copies it when the file has per-sample checksums (the
// reader then skips the chunk checksum): the copy finds the sample in the cache.
pipeline::BatchGatherer::RowCheck RowCheck(const source::ChunkSource& source) {
  if (!source.ChecksRows()) return nullptr;
  return [&source](int64_t row, std::span<const uint8_t> sample) { source.VerifyRow(row, sample); };
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
          OwnSizeMaskMakers(fields, reading.gathered, run_views, device)};
}

}  // namespace h5feed::loader
