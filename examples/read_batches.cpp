// Reads an h5feed file the way a C++ training loop would: two epochs of shuffled, normalized
// batches, a checkpoint of the loader's position half-way, and a resume from it.
//
//   examples/read_batches FILE.h5 [BATCH_SIZE]

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string_view>
#include <system_error>

#include "h5feed/error.h"
#include "h5feed/loader.h"

namespace {

// Stands in for a training step: something that reads every value of the batch.
double Checksum(const h5feed::Batch& batch) {
  double sum = 0;
  for (float value : batch.normalized_images()) sum += value;
  for (int64_t label : batch.labels()) sum += static_cast<double>(label);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.h5 [BATCH_SIZE]\n", argv[0]);
    return 2;
  }
  int64_t batch_size = 64;
  if (argc > 2) {
    const std::string_view given = argv[2];
    const auto [end, error] =
        std::from_chars(given.data(), given.data() + given.size(), batch_size);
    if (error != std::errc() || end != given.data() + given.size() || batch_size < 1) {
      std::fprintf(stderr,
                   "%s: BATCH_SIZE must be a whole number of images, at least 1, not '%s'\n",
                   argv[0], argv[2]);
      return 2;
    }
  }
  try {
    h5feed::LoaderOptions options;
    options.batch_size = batch_size;
    options.sampler = h5feed::SamplerOptions::Parse("chunks:8");
    options.normalize = true;  // float32 NCHW, ImageNet mean and std
    options.seed = 7;
    h5feed::Loader loader = h5feed::Loader::Open(argv[1], options);
    const h5feed::DatasetInfo& data = loader.dataset();
    std::printf(
        "%s: %lld images of %lldx%lldx%lld in %lld chunks; %lld batches per epoch\n", argv[1],
        static_cast<long long>(data.samples), static_cast<long long>(data.image_shape.height),
        static_cast<long long>(data.image_shape.width),
        static_cast<long long>(data.image_shape.channels), static_cast<long long>(data.chunks),
        static_cast<long long>(loader.batches_per_epoch()));

    h5feed::LoaderState checkpoint;
    double second_half = 0;
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      loader.SetEpoch(epoch);
      double sum = 0;
      while (auto batch = loader.Next()) {
        const int64_t half = loader.batches_per_epoch() / 2;
        // State() is the position after the batch Next just returned.
        if (epoch == 1 && batch->step() == half) checkpoint = loader.State();
        const double value = Checksum(*batch);
        sum += value;
        if (epoch == 1 && batch->step() > half) second_half += value;
      }
      std::printf("epoch %lld: checksum %.6g\n", static_cast<long long>(epoch), sum);
    }

    // A restarted job: open again, restore, and get exactly the batches that followed.
    h5feed::Loader resumed = h5feed::Loader::Open(argv[1], options);
    resumed.Restore(checkpoint);
    double replayed = 0;
    while (auto batch = resumed.Next()) replayed += Checksum(*batch);
    std::printf("resumed at epoch 1 step %lld: %s\n", static_cast<long long>(checkpoint.step),
                replayed == second_half ? "same batches" : "DIFFERENT batches");

    const h5feed::LoaderStats stats = loader.stats();
    std::printf("chunk reads %llu for %lld chunks x 2 epochs, cache hits %llu, misses %llu\n",
                static_cast<unsigned long long>(stats.chunk_reads),
                static_cast<long long>(data.chunks),
                static_cast<unsigned long long>(stats.cache_hits),
                static_cast<unsigned long long>(stats.cache_misses));
    return replayed == second_half ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_batches: %s\n", e.what());
    return 1;
  }
}
