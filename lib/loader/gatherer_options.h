#pragma once
// How a loader's gatherer fills a slot (pipeline/batch_gatherer.h): each row checked as it is
// copied where the file has per-row checksums, copied as stored or cropped and resized from its
// stored bytes (reading_plan.h), with its array fields' values (held, or streamed with the
// chunk: streamed_fields.h) and, for the GPU stage, the masks of images at their own size
// (own_size_masks.h). With skip_corrupt_chunks the image chunks holding a damaged row of a held
// field (BatchFields::damaged_rows) are left out from the first step, warned of at open.

#include <memory>

#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "loader/batch_fields.h"
#include "loader/reading_plan.h"
#include "loader/streamed_fields.h"
#include "pipeline/batch_gatherer.h"
#include "source/chunk_source.h"
#include "transform/output_views.h"

namespace h5feed::loader {

// The gatherer's options for `dataset` read through `source` (which must outlive them) as
// `reading` plans, the views of the run `run_views` (null: none), the asked `fields` and those
// `streamed`; `device`: the GPU stage delivers.
pipeline::BatchGatherer::Options GathererOptions(
    const LoaderOptions& options, const index::DatasetIndex& dataset, const ReadingPlan& reading,
    const source::ChunkSource& source,
    const std::shared_ptr<const transform::OutputViews>& run_views,
    const std::shared_ptr<const BatchFields>& fields, bool device, const StreamedFields& streamed);

}  // namespace h5feed::loader
