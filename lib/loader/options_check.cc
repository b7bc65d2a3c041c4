#include "loader/options_check.h"

#include <string>

#include "h5feed/error.h"

namespace h5feed::loader {
namespace {

void Require(bool condition, const std::string& option, int64_t value, const std::string& rule) {
  if (!condition) {
    throw Error(ErrorCode::kInvalidArgument, "LoaderOptions." + option + " is " +
                                                 std::to_string(value) + "; " + rule);
  }
}

}  // namespace

void CheckOptions(const LoaderOptions& options) {
  Require(options.batch_size >= 1, "batch_size", options.batch_size, "it must be >= 1");
  Require(options.slots >= 1, "slots", options.slots, "it must be >= 1");
  Require(options.threads >= 0, "threads", options.threads, "it must be >= 0 (0 = all cores)");
  Require(options.echo >= 1, "echo", options.echo, "it must be >= 1 (1 = no echoing)");
  Require(options.cache_bytes >= 0, "cache_bytes", options.cache_bytes,
          "it must be >= 0 (0 = keep only the chunks in use)");
  Require(options.slots >= options.echo, "slots", options.slots,
          "echo = " + std::to_string(options.echo) +
              " needs at least as many slots (each echo copy is a batch in its own slot)");
  Require(options.sampler.window >= 1, "sampler.window", options.sampler.window,
          "it must be >= 1");
  // Until the GPU stage and the CPU path's other types and layouts land (issue 4).
  const OutputOptions& output = options.output;
  const bool default_output = output.type == ElementType::kFloat32 &&
                              output.layout == Layout::kNCHW && !output.augment.any() &&
                              output.cuda_device < 0;
  if (!default_output) {
    throw Error(ErrorCode::kUnsupported,
                "LoaderOptions.output: this build delivers host batches, uint8 NHWC or float32 "
                "NCHW without augmentation; other types, layouts, augmentation and CUDA devices "
                "are not implemented yet");
  }
  Require(options.shard.world_size >= 1, "shard.world_size", options.shard.world_size,
          "it must be >= 1");
  Require(options.shard.rank >= 0 && options.shard.rank < options.shard.world_size,
          "shard.rank", options.shard.rank,
          "it must be in [0, world_size = " + std::to_string(options.shard.world_size) + ")");
}

void CheckOptionsForDataset(const LoaderOptions& options, const std::string& path,
                            int64_t samples_per_rank) {
  if (options.batch_size > samples_per_rank) {
    throw Error(ErrorCode::kInvalidArgument,
                "LoaderOptions.batch_size is " + std::to_string(options.batch_size) +
                    " but rank " + std::to_string(options.shard.rank) + " of " +
                    std::to_string(options.shard.world_size) + " reads only " +
                    std::to_string(samples_per_rank) + " samples per epoch of " + path +
                    "; use a batch of at most " + std::to_string(samples_per_rank) +
                    " or fewer ranks");
  }
}

}  // namespace h5feed::loader
