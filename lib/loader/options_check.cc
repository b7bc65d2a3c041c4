#include "loader/options_check.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "io/resource_limits.h"
#include "memory/slot_layout.h"
#include "remote_options_check.h"

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::loader {
namespace {

std::string Count(int64_t n, const char* thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

// A slot as SlotLayout lays it out (saturating where rows x image bytes overflows, for absurd
// values).
double SlotBytes(const DatasetFootprint& dataset) {
  return static_cast<double>(memory::SlotLayout::Bytes(
      dataset.batch_capacity, static_cast<size_t>(dataset.image_bytes), dataset.slot));
}

// The cache as far as the file's chunks fill it.
double CacheBytes(const LoaderOptions& options, const DatasetFootprint& dataset) {
  return std::min(static_cast<double>(options.cache_bytes),
                  static_cast<double>(dataset.chunk_bytes) * static_cast<double>(dataset.chunks));
}

// The masks the slots' batches hold: each slot's batch_capacity rows of mask_bytes.
double MaskBytes(const LoaderOptions& options, const DatasetFootprint& dataset) {
  return SlotCount(options) * static_cast<double>(dataset.batch_capacity) *
         static_cast<double>(dataset.mask_bytes);
}

}  // namespace

double CommittedBytes(const LoaderOptions& options, const DatasetFootprint& dataset) {
  return SlotCount(options) * SlotBytes(dataset) + CacheBytes(options, dataset) +
         MaskBytes(options, dataset);
}

uint64_t MemoryBesideCommitted(const LoaderOptions& options, const DatasetFootprint& dataset) {
  const double left =
      static_cast<double>(io::limits::PhysicalMemoryBytes()) - CommittedBytes(options, dataset);
  return left <= 0 ? 0 : static_cast<uint64_t>(left);
}

std::string OptionName(const LoaderOptions& options, std::string_view field) {
  return NameOption(options.option_names, "LoaderOptions", field);
}

void CheckOptions(const LoaderOptions& options) {
  const auto Require = [&options](bool condition, std::string_view option, int64_t value,
                                  const std::string& rule) {
    if (!condition) {
      throw MakeError(ErrorCode::kInvalidArgument, "{} is {}; {}", OptionName(options, option),
                      value, rule);
    }
  };
  Require(options.batch_size >= 1, "batch_size", options.batch_size, "it must be >= 1");
  Require(options.slots >= 1 && options.slots <= kMaxSlots, "slots", options.slots,
          "it must be in [1, " + std::to_string(kMaxSlots) + "]");
  Require(options.threads >= 0 && options.threads <= kMaxThreads, "threads", options.threads,
          "it must be in [0, " + std::to_string(kMaxThreads) + "] (0 = all cores)");
  Require(options.echo >= 1, "echo", options.echo, "it must be >= 1 (1 = no echoing)");
  Require(options.cache_bytes >= 0, "cache_bytes", options.cache_bytes,
          "it must be >= 0 (0 = keep only the chunks in use)");
  Require(options.held_field_bytes >= 0, "held_field_bytes", options.held_field_bytes,
          "it must be >= 0 (0 = a quarter of this machine's memory)");
  Require(options.held_batches >= 0 && options.held_batches <= kMaxSlots, "held_batches",
          options.held_batches, "it must be in [0, " + std::to_string(kMaxSlots) + "]");
  // Each echo copy of a step is a batch in a slot of its own: a step needs `echo` free slots,
  // and with fewer the loader would wait for a slot that never comes free.
  if (options.slots < options.echo) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is {} and {} is {}: each echo copy of a batch is a batch in a slot of its "
                    "own, so {} must be at least {}; raise {} to {} or lower {}",
                    OptionName(options, "echo"), options.echo, OptionName(options, "slots"),
                    options.slots, OptionName(options, "slots"), OptionName(options, "echo"),
                    OptionName(options, "slots"), options.echo, OptionName(options, "echo"));
  }
  Require(options.sampler.window >= 1, "sampler.window", options.sampler.window, "it must be >= 1");
  Require(options.open_probe_stall_seconds >= 1, "open_probe_stall_seconds",
          options.open_probe_stall_seconds, "it must be >= 1");
  // The stall limit is the probe's watchdog: without the probe nothing watches the open, and
  // a limit set beside open_probe = false would be ignored without a word.
  if (!options.open_probe &&
      options.open_probe_stall_seconds != LoaderOptions{}.open_probe_stall_seconds) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is {}, and {} turns the open probe off: the stall limit is the probe's "
                    "(it gives up an open that makes no progress in the probe's process), and "
                    "an open hung in this process cannot be given up. Keep the probe on to bound "
                    "the open, or leave {} at its default ({})",
                    OptionName(options, "open_probe_stall_seconds"),
                    options.open_probe_stall_seconds, OptionName(options, "open_probe"),
                    OptionName(options, "open_probe_stall_seconds"),
                    LoaderOptions{}.open_probe_stall_seconds);
  }
  CheckRemoteOptions(options.remote, [&options](std::string_view field) {
    return OptionName(options, "remote." + std::string(field));
  });
  // The element type, layout, augmentation and device describe normalized images; uint8
  // batches are delivered on the host as stored. (Crop sizes are checked against the images
  // in transform::MakeOutputSpec.)
  const OutputOptions& output = options.output;
  Require(output.cuda_device >= -1, "output.cuda_device", output.cuda_device,
          "it must be a CUDA device index, or -1 for host batches");
  // Checked whether or not the file has masks: a typo is as wrong on a file without them.
  Require(output.mask_fill >= 0 && output.mask_fill <= 255, "output.mask_fill", output.mask_fill,
          "it must be in [0, 255]: the class id a mask's padding gets (255: VOC's \"ignore\")");
  // The options of normalized batches that are set, each as the caller spells it.
  std::string for_normalized;
  int normalized_options = 0;
  const auto set = [&](bool given, std::string_view field) {
    if (!given) return;
    for_normalized += (for_normalized.empty() ? "" : ", ") + OptionName(options, field);
    ++normalized_options;
  };
  set(output.type != ElementType::kFloat32, "output.type");
  set(output.layout != Layout::kNCHW, "output.layout");
  set(output.augment.any(), "output.augment");
  set(output.cuda_device >= 0, "output.cuda_device");
  if (!options.normalize && !for_normalized.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} {} to normalized batches, but {} asks for uint8 batches as stored, "
                    "which are delivered on the host: ask for normalized batches ({}), or leave "
                    "{} out",
                    for_normalized, normalized_options == 1 ? "applies" : "apply",
                    OptionName(options, "normalize"), OptionName(options, "normalize"),
                    normalized_options == 1 ? "it" : "those");
  }
  // uint8 views are the crops for a trainer's own GPU transforms: it copies them (a quarter of
  // float32's bytes) and normalizes there; the GPU stage makes normalized images.
  if (options.normalize && output.type == ElementType::kUint8 && output.cuda_device >= 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is uint8, which is delivered on the host: set {} to -1 and copy the batch "
                    "to the GPU yourself (torch: images.cuda(non_blocking=True)), or ask for "
                    "float32, float16 or bfloat16 from the GPU stage",
                    OptionName(options, "output.type"), OptionName(options, "output.cuda_device"));
  }
  Require(options.shard.world_size >= 1, "shard.world_size", options.shard.world_size,
          "it must be >= 1");
  Require(options.shard.rank >= 0 && options.shard.rank < options.shard.world_size, "shard.rank",
          options.shard.rank,
          "it must be in [0, " + OptionName(options, "shard.world_size") + " = " +
              std::to_string(options.shard.world_size) + ")");
}

void CheckOptionsForDataset(const LoaderOptions& options, const std::string& path,
                            const DatasetFootprint& dataset) {
  // Fewer rows than a batch make one short batch per epoch (torch's DataLoader does the same);
  // with drop_last_batch that batch is dropped and every epoch would be empty.
  const int64_t samples_per_rank = dataset.samples_per_rank;
  if (options.drop_last_batch && options.batch_size > samples_per_rank) {
    const ShardOptions& shard = options.shard;
    const std::string rows =
        shard.world_size == 1
            ? path + " has " + Count(samples_per_rank, "row")
            : "rank " + std::to_string(shard.rank) + " of " + std::to_string(shard.world_size) +
                  " reads " + Count(samples_per_rank, "row") + " of " + path + " per epoch";
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{}, fewer than one batch of {}, and {} drops that short batch: every epoch would be "
        "empty. Lower {} to at most {}, or leave out {} for one short batch per epoch{}",
        rows, options.batch_size, OptionName(options, "drop_last_batch"),
        OptionName(options, "batch_size"), samples_per_rank, OptionName(options, "drop_last_batch"),
        (shard.world_size > 1 ? ", or use fewer ranks" : ""));
  }
  const double slot_bytes = SlotBytes(dataset);
  const double cache_bytes = CacheBytes(options, dataset);
  const double mask_bytes = MaskBytes(options, dataset);
  const double wanted = CommittedBytes(options, dataset);
  const double memory = static_cast<double>(io::limits::PhysicalMemoryBytes());
  if (wanted > memory) {
    // Clamped where llround could not hold it (a saturated slot size).
    const auto size = [](double bytes) { return ByteSize(std::llround(std::min(bytes, 9e18))); };
    std::string buffers = Count(options.slots, "slot");
    if (options.held_batches > 0) {
      buffers += " and " + std::to_string(options.held_batches) + " held by the caller";
    }
    // The masks made ahead with each slot's batch, when asked: what they take, and what lowers
    // it besides the slots and the batch size.
    std::string masks;
    std::string fewer_masks;
    if (mask_bytes > 0) {
      masks = fmt::format(
          " plus those batches' masks ({}, {} an image: every mask asked in every view, made "
          "ahead of the trainer)",
          size(mask_bytes), ByteSize(dataset.mask_bytes));
      fewer_masks = ", or ask for fewer masks in " + OptionName(options, "fields") +
                    " or smaller views (their size or max_output)";
    }
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} of a {}-image batch ({} each) plus a cache of {}{} need {}, more than this "
                    "machine's {} of memory ({}); lower {}, {} or {}{}",
                    buffers, dataset.batch_capacity, size(slot_bytes), size(cache_bytes), masks,
                    size(wanted), size(memory), path, OptionName(options, "slots"),
                    OptionName(options, "batch_size"), OptionName(options, "cache_bytes"),
                    fewer_masks);
  }
}

}  // namespace h5feed::loader
