#include "bench/augment_cost.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "h5feed/loader.h"
#include "pipeline/cpu_normalize.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"

namespace h5feed::bench {

AugmentCost MeasureAugmentCost(const std::string& path, const AugmentOptions& augment, int threads,
                               int64_t batch, uint64_t seed, double seconds) {
  LoaderOptions options;
  options.batch_size = batch;
  options.sampler.kind = SamplerOptions::Kind::kSequential;
  options.drop_last_batch = false;
  options.threads = threads;
  options.slots = 1;
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
  using Clock = std::chrono::steady_clock;
  int64_t transformed = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  for (int64_t epoch = 0; elapsed < seconds || epoch < 2; ++epoch) {
    arena.execute([&] {
      pipeline::NormalizeBatch(images, shape, count, spec, pipeline::SampleKeys{epoch, 0, rows},
                               out);
    });
    transformed += count;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  AugmentCost cost;
  cost.threads = threads;
  cost.images_per_s = static_cast<double>(transformed) / elapsed;
  cost.output_mb_per_s = cost.images_per_s * static_cast<double>(spec.image_bytes()) / 1e6;
  cost.out_height = spec.augment.out_height;
  cost.out_width = spec.augment.out_width;
  cost.channels = shape.channels;
  return cost;
}

}  // namespace h5feed::bench
