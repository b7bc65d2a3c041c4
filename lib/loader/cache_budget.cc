#include "loader/cache_budget.h"

#include <algorithm>

#include "byte_size.h"
#include "loader/options_check.h"
#include "loader/warning.h"
#include "sampler/epoch_order.h"

namespace h5feed::loader {

int64_t CacheBudget::prefetch_chunks() const {
  return std::max<int64_t>(0, cache_chunks - working_set);
}

CacheBudget MeasureCacheBudget(const LoaderOptions& options, int64_t batch_capacity,
                               const ChunkRows& chunks, int64_t chunk_bytes) {
  CacheBudget budget;
  budget.chunk_bytes = chunk_bytes;
  if (budget.chunk_bytes <= 0 || chunks.chunks() == 0) return budget;
  budget.cache_chunks = options.cache_bytes / budget.chunk_bytes;
  const int64_t threads = options.threads > 0 ? options.threads : 1;
  const auto rows_per_chunk = std::max<int64_t>(1, static_cast<int64_t>(chunks.mean_rows()));
  const int64_t in_flight = SlotCount(options) * (batch_capacity / rows_per_chunk + 1);
  budget.working_set = budget.cache_chunks / 2;
  switch (options.sampler.kind) {
    case SamplerOptions::Kind::kSequential: budget.working_set = 1 + in_flight + threads; break;
    case SamplerOptions::Kind::kChunks:
    case SamplerOptions::Kind::kQuasi:
      budget.working_set = options.sampler.window + in_flight + threads;
      break;
    case SamplerOptions::Kind::kRandom: break;
  }
  return budget;
}

std::optional<std::string> CacheTooSmallWarning(const LoaderOptions& options,
                                                const CacheBudget& budget, int64_t chunk_count,
                                                const std::string& path) {
  const SamplerOptions& sampler = options.sampler;
  if (!sampler::UsesWindow(sampler)) return std::nullopt;
  const int64_t ahead = sampler.kind == SamplerOptions::Kind::kChunks ? sampler.window : 1;
  const int64_t wanted = std::min(budget.working_set + ahead, chunk_count);
  if (budget.chunk_bytes <= 0 || budget.cache_chunks >= wanted) return std::nullopt;
  const std::string use = "sampler " + sampler.ToString() + " keeps about " +
                          std::to_string(budget.working_set) + " in use (its window, the " +
                          "steps in flight in " + std::to_string(options.slots) +
                          " slots, one per thread)";
  const std::string consequence =
      budget.cache_chunks < budget.working_set
          ? ": chunks may be read and decoded more than once per epoch"
          : " and needs room for " + std::to_string(ahead) +
                " more to load the next ones ahead: batches can wait at each window switch";
  return "a cache of " + ToString(ByteSize(options.cache_bytes)) + " holds " +
         std::to_string(budget.cache_chunks) + " chunks of " + path + ", but " + use + consequence +
         ". " + OptionName(options, "cache_bytes") + " of " +
         ToString(ByteSize(wanted * budget.chunk_bytes)) + " avoids it (or use a smaller window)";
}

}  // namespace h5feed::loader
