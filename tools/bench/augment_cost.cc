#include "bench/augment_cost.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "h5feed/loader.h"
#include "index/dataset_index.h"
#include "loader/reading_plan.h"
#include "pipeline/cpu_normalize.h"
#include "pipeline/own_size_sample.h"
#include "source/open_chunk_source.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"
#include "transform/output_views.h"

namespace h5feed::bench {

namespace {

// Runs `transform(epoch)` on `count` images, epoch after epoch (each round another epoch's
// draws) for about `seconds` and at least two rounds, and reports the rate of `spec`'s images.
template <typename Transform>
AugmentCost TimeRounds(int64_t count, double seconds, int threads,
                       const transform::OutputSpec& spec, int64_t channels, Transform&& transform) {
  using Clock = std::chrono::steady_clock;
  int64_t transformed = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  for (int64_t epoch = 0; elapsed < seconds || epoch < 2; ++epoch) {
    transform(epoch);
    transformed += count;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  AugmentCost cost;
  cost.threads = threads;
  cost.images_per_s = static_cast<double>(transformed) / elapsed;
  cost.output_mb_per_s = cost.images_per_s * static_cast<double>(spec.image_bytes()) / 1e6;
  cost.out_height = spec.augment.out_height;
  cost.out_width = spec.augment.out_width;
  cost.channels = channels;
  return cost;
}

// For a file whose rows are cropped as they are gathered (images at their own size): the crop
// made from each image's stored bytes (a JPEG decoded where the crop reads), as the loader's
// gather makes it, then the flip and the normalization. The first `batch` images' stored bytes
// are read once, outside the timing.
AugmentCost MeasureGatherCropCost(const index::DatasetIndex& dataset,
                                  const loader::ReadingPlan& plan, int threads, int64_t batch,
                                  double seconds) {
  const std::unique_ptr<source::ChunkSource> source =
      source::OpenChunkSource(dataset, source::ChunkSourceOptions{});
  const int64_t count = std::min(batch, dataset.samples);
  std::vector<std::vector<uint8_t>> stored;
  std::vector<uint8_t> chunk(static_cast<size_t>(source->chunk_bytes()));
  for (int64_t c = 0; static_cast<int64_t>(stored.size()) < count; ++c) {
    source->Read(c, chunk);
    for (int64_t row = dataset.first_row_of_chunk(c);
         row < dataset.first_row_of_chunk(c + 1) && static_cast<int64_t>(stored.size()) < count;
         ++row) {
      const StoredRow at = dataset.rows.at(row);
      stored.emplace_back(chunk.begin() + static_cast<std::ptrdiff_t>(at.offset),
                          chunk.begin() + static_cast<std::ptrdiff_t>(at.offset + at.bytes));
    }
  }
  const LoaderOptions& options = plan.options;
  const LoaderOptions defaults;
  const transform::OutputViews views =
      plan.MakeViews(transform::MakeNormalizeParams(defaults.mean.data(), defaults.std.data(), 3,
                                                    static_cast<int>(plan.gathered.channels)),
                     options.output, nullptr);
  const transform::OutputSpec& spec = views.views[0];
  std::vector<int64_t> rows(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) rows[static_cast<size_t>(i)] = i;
  std::vector<uint8_t> gathered(static_cast<size_t>(count * plan.gathered.bytes()));
  std::vector<uint8_t> out(static_cast<size_t>(count * spec.image_bytes()));
  tbb::task_arena arena(threads);
  return TimeRounds(count, seconds, threads, spec, plan.gathered.channels, [&](int64_t epoch) {
    arena.execute([&] {
      tbb::parallel_for(int64_t{0}, count, [&](int64_t i) {
        const StoredRow image = dataset.rows.at(i);
        pipeline::MakeOwnSizeSample(views.gather_crops[0], epoch, i, {image.shape, image.encoding},
                                    stored[static_cast<size_t>(i)],
                                    gathered.data() + i * plan.gathered.bytes());
      });
      pipeline::NormalizeBatch(gathered, plan.gathered, count, spec,
                               pipeline::SampleKeys{epoch, 0, rows}, out);
    });
  });
}

}  // namespace

AugmentCost MeasureAugmentCost(const std::string& path, const std::string& images_dataset,
                               const AugmentOptions& augment, int threads, int64_t batch,
                               uint64_t seed, double seconds) {
  index::IndexOptions index_options;
  index_options.images = images_dataset;
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, index_options);
  LoaderOptions reading;
  reading.images_dataset = images_dataset;
  reading.normalize = true;
  reading.seed = seed;
  reading.output.augment = augment;
  const loader::ReadingPlan plan = loader::PlanReading(reading, dataset);
  if (plan.crops_at_gather) return MeasureGatherCropCost(dataset, plan, threads, batch, seconds);
  LoaderOptions options;
  options.batch_size = batch;
  options.sampler.kind = SamplerOptions::Kind::kSequential;
  options.drop_last_batch = false;
  options.threads = threads;
  options.slots = 1;
  options.images_dataset = images_dataset;
  Loader loader = Loader::Open(path, options);
  const ImageShape shape = loader.dataset().image_shape;
  std::optional<Batch> first = loader.Next();
  const std::vector<uint8_t> images(first->images().begin(), first->images().end());
  const std::vector<int64_t> rows(first->indices().begin(), first->indices().end());
  const int64_t count = first->size();
  first.reset();

  OutputOptions output;
  output.augment = augment;
  const LoaderOptions defaults;
  const transform::OutputSpec spec = transform::MakeOutputSpec(
      transform::MakeNormalizeParams(defaults.mean.data(), defaults.std.data(), 3,
                                     static_cast<int>(shape.channels)),
      shape, output, seed);
  std::vector<uint8_t> out(static_cast<size_t>(count * spec.image_bytes()));
  tbb::task_arena arena(threads);
  return TimeRounds(count, seconds, threads, spec, shape.channels, [&](int64_t epoch) {
    arena.execute([&] {
      pipeline::NormalizeBatch(images, shape, count, spec, pipeline::SampleKeys{epoch, 0, rows},
                               out);
    });
  });
}

}  // namespace h5feed::bench
