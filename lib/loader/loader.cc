// The facade: the public Loader's calls, each on its Impl (loader/loader_impl.h), which wires
// the modules into a Loader and owns them; the work itself (reading, caching, ordering,
// assembling) is theirs.
#include "h5feed/loader.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "loader/loader_impl.h"
#include "loader/open_loader.h"
#include "loader/options_check.h"
#include "loader/resume_point.h"
#include "make_error.h"

namespace h5feed {

namespace loader {

Loader OpenLoader(const std::string& path, const LoaderOptions& options,
                  const ChunkFileOpener& open_chunk_file) {
  return Loader(std::make_unique<Loader::Impl>(path, options, open_chunk_file));
}

}  // namespace loader

Loader Loader::Open(const std::string& path, const LoaderOptions& options) {
  return loader::OpenLoader(path, options, nullptr);
}

Loader::Loader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Loader::Loader(Loader&&) noexcept = default;
Loader& Loader::operator=(Loader&&) noexcept = default;
Loader::~Loader() = default;

Loader::Impl& Loader::live() const {
  // A moved-from Loader holds nothing: say so instead of following a null pointer.
  if (!impl_) {
    throw Error(ErrorCode::kInvalidArgument,
                "h5feed::Loader: this Loader was moved from; its reader belongs to the Loader it "
                "was moved to: use that one, or open another with Loader::Open");
  }
  return *impl_;
}

void Loader::SetOutputSize(int64_t height, int64_t width, int spec) {
  live().view_sizes.SetOutputSize(height, width, spec);
}

void Loader::SetEpoch(int64_t epoch) {
  Impl& impl = live();
  // An epoch is a count (the order's key with the seed): a negative one is a caller's slip,
  // such as an epoch counter started at -1, that would silently read an order no epoch has.
  if (epoch < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{}({}): an epoch is a count from 0 (the first epoch is 0); pass the epoch "
                    "about to be read",
                    NameMethod(impl.options.option_names, "Loader", "SetEpoch"), epoch);
  }
  impl.epoch = epoch;
  impl.stretches.clear();
  impl.resumed_order.clear();
  impl.first_step = 0;
  impl.stretch_steps = impl.steps.delivered();
  impl.next_step = 0;
  impl.StartRun();
}

std::optional<Batch> Loader::Next() { return live().Next(); }

bool Loader::WaitReady(std::chrono::milliseconds timeout) { return live().WaitReady(timeout); }

LoaderState Loader::State() const {
  const Impl& impl = live();
  return loader::StateAt(impl.epoch, impl.first_step + impl.next_step, impl.stretches,
                         impl.identity, impl.options);
}

void Loader::Restore(const LoaderState& state) {
  Impl& impl = live();
  loader::ResumePoint point =
      loader::PlanResume(state, impl.identity, impl.geometry, impl.options, impl.steps.delivered());
  impl.epoch = point.epoch;
  impl.first_step = point.first_step();
  impl.stretch_steps = point.stretch_steps;
  impl.stretches = std::move(point.stretches);
  impl.resumed_order = std::move(point.order);
  impl.next_step = point.step;
  impl.StartRun();
}

int64_t Loader::batches_per_epoch() const {
  const Impl& impl = live();
  return impl.first_step + impl.stretch_steps;
}

int64_t Loader::samples_per_epoch() const { return live().samples_per_rank; }

const DatasetInfo& Loader::dataset() const { return live().info; }

const std::vector<FieldSpec>& Loader::fields() const { return live().asked_fields; }

std::vector<std::string> Loader::streamed_fields() const { return live().streamed.names(); }

LoaderStats Loader::stats() const {
  Impl& impl = live();
  const cache::CacheStats cache = impl.cache.stats();
  LoaderStats stats;
  stats.batches = impl.batches;
  stats.samples = impl.samples;
  stats.chunk_reads = cache.loads;
  stats.chunk_reads_ahead = cache.prefetches_past_epoch;
  stats.cache_hits = cache.hits;
  stats.cache_misses = cache.misses;
  stats.bytes_read = cache.bytes_read;
  stats.bytes_decoded = cache.bytes_decoded;
  stats.corrupt_chunks_skipped = impl.gatherer.corrupt_chunks_skipped();
  stats.samples_skipped = impl.gatherer.samples_skipped();
  stats.wait_seconds = impl.wait_seconds;
  stats.slot_bytes = static_cast<uint64_t>(impl.layout.bytes()) *
                     static_cast<uint64_t>(loader::SlotCount(impl.options));
  return stats;
}

}  // namespace h5feed
