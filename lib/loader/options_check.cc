#include "loader/options_check.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/resource_limits.h"

#include "h5feed/error.h"

namespace h5feed::loader {
namespace {

void Require(bool condition, const std::string& option, int64_t value, const std::string& rule) {
  if (!condition) {
    throw Error(ErrorCode::kInvalidArgument,
                "LoaderOptions." + option + " is " + std::to_string(value) + "; " + rule);
  }
}

}  // namespace

void CheckOptions(const LoaderOptions& options) {
  Require(options.batch_size >= 1, "batch_size", options.batch_size, "it must be >= 1");
  Require(options.slots >= 1 && options.slots <= kMaxSlots, "slots", options.slots,
          "it must be in [1, " + std::to_string(kMaxSlots) + "]");
  Require(options.threads >= 0 && options.threads <= kMaxThreads, "threads", options.threads,
          "it must be in [0, " + std::to_string(kMaxThreads) + "] (0 = all cores)");
  Require(options.echo >= 1, "echo", options.echo, "it must be >= 1 (1 = no echoing)");
  Require(options.cache_bytes >= 0, "cache_bytes", options.cache_bytes,
          "it must be >= 0 (0 = keep only the chunks in use)");
  Require(options.slots >= options.echo, "slots", options.slots,
          "echo = " + std::to_string(options.echo) +
              " needs at least as many slots (each echo copy is a batch in its own slot)");
  Require(options.sampler.window >= 1, "sampler.window", options.sampler.window, "it must be >= 1");
  Require(options.open_probe_stall_seconds >= 1, "open_probe_stall_seconds",
          options.open_probe_stall_seconds, "it must be >= 1");
  const RemoteOptions& remote = options.remote;
  Require(remote.connections >= 1 && remote.connections <= 1024, "remote.connections",
          remote.connections, "it must be in [1, 1024]");
  Require(remote.retries >= 0 && remote.retries <= 100, "remote.retries", remote.retries,
          "it must be in [0, 100]");
  Require(remote.connect_timeout_seconds >= 1, "remote.connect_timeout_seconds",
          remote.connect_timeout_seconds, "it must be >= 1");
  Require(remote.stall_seconds >= 1, "remote.stall_seconds", remote.stall_seconds,
          "it must be >= 1");
  Require(remote.spill_bytes >= 0, "remote.spill_bytes", remote.spill_bytes,
          "it must be >= 0 (0 = keep nothing)");
  // The element type, layout, augmentation and device describe normalized images; uint8
  // batches are delivered on the host as stored. (Crop sizes are checked against the images
  // in transform::MakeOutputSpec.)
  const OutputOptions& output = options.output;
  Require(output.cuda_device >= -1, "output.cuda_device", output.cuda_device,
          "it must be a CUDA device index, or -1 for host batches");
  const bool default_output = output.type == ElementType::kFloat32 &&
                              output.layout == Layout::kNCHW && !output.augment.any() &&
                              output.cuda_device < 0;
  if (!options.normalize && !default_output) {
    throw Error(ErrorCode::kInvalidArgument,
                "LoaderOptions.output asks for another type, layout, augmentation or a CUDA "
                "device, which apply to normalized images; set normalize = true (uint8 batches "
                "are delivered on the host, as stored)");
  }
  Require(options.shard.world_size >= 1, "shard.world_size", options.shard.world_size,
          "it must be >= 1");
  Require(options.shard.rank >= 0 && options.shard.rank < options.shard.world_size, "shard.rank",
          options.shard.rank,
          "it must be in [0, world_size = " + std::to_string(options.shard.world_size) + ")");
}

void CheckOptionsForDataset(const LoaderOptions& options, const std::string& path,
                            const DatasetFootprint& dataset) {
  const int64_t samples_per_rank = dataset.samples_per_rank;
  if (options.batch_size > samples_per_rank) {
    throw Error(
        ErrorCode::kInvalidArgument,
        "LoaderOptions.batch_size is " + std::to_string(options.batch_size) + " but rank " +
            std::to_string(options.shard.rank) + " of " + std::to_string(options.shard.world_size) +
            " reads only " + std::to_string(samples_per_rank) + " samples per epoch of " + path +
            "; use a batch of at most " + std::to_string(samples_per_rank) + " or fewer ranks");
  }
  // In floating point: batch_size x image bytes may overflow int64 for absurd values. A slot
  // holds the images and, when normalizing on the host, every view's outputs, plus label,
  // index and order (8 bytes each) per row; SlotLayout adds alignment, a few hundred bytes.
  const double sample_bytes =
      static_cast<double>(dataset.image_bytes) + static_cast<double>(dataset.output_bytes);
  const double slot_bytes = static_cast<double>(options.batch_size) * (sample_bytes + 24);
  const double cache_bytes =
      std::min(static_cast<double>(options.cache_bytes),
               static_cast<double>(dataset.chunk_bytes) * static_cast<double>(dataset.chunks));
  const double wanted = options.slots * slot_bytes + cache_bytes;
  const double memory = static_cast<double>(io::limits::PhysicalMemoryBytes());
  if (wanted > memory) {
    const auto gib = [](double bytes) { return std::to_string(std::llround(bytes / (1 << 30))); };
    throw Error(ErrorCode::kInvalidArgument,
                "LoaderOptions: " + std::to_string(options.slots) + " slots of a " +
                    std::to_string(options.batch_size) + "-image batch (" + gib(slot_bytes) +
                    " GiB each) plus a cache of " + gib(cache_bytes) + " GiB need " + gib(wanted) +
                    " GiB, more than this machine's " + gib(memory) + " GiB of memory (" + path +
                    "); lower slots, batch_size or cache_bytes");
  }
}

}  // namespace h5feed::loader
