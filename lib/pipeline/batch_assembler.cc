#include "pipeline/batch_assembler.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "pipeline/cpu_normalize.h"
#include "pipeline/echo.h"

namespace h5feed::pipeline {

// One loaded step in flight. leases[0] receives the loaded batch and is delivered as copy 0
// (unless a resumed run starts past it); leases[1..] receive echo copies first_made_copy(),
// first_made_copy() + 1, ..., echo - 1.
struct BatchAssembler::Job {
  int64_t loaded_step = 0;
  int first_copy = 0;  // the first copy delivered (0 except for a run resumed mid-echo)
  std::vector<memory::SlotLease> leases;
  int64_t rows = 0;
  std::vector<std::shared_ptr<const void>> extras;  // per lease: AssemblerOptions::make_extras
  std::exception_ptr error;

  int first_made_copy() const { return std::max(first_copy, 1); }
};

namespace {

const AssemblerResources& Complete(const AssemblerResources& resources) {
  if (!resources.cache || !resources.pool || !resources.layout || !resources.gatherer ||
      !resources.arena) {
    throw Error(ErrorCode::kInternal, "batch assembler: missing resources");
  }
  return resources;
}

// The run's chunk source, told that its loads end once the run's stop is requested (before the
// run's first read, the prefetcher's included), and asked for its read-ahead.
source::ReadAhead* StartLoads(source::RunControl* source, std::stop_token stop) {
  if (!source) return nullptr;
  source->StopLoadsOn(std::move(stop));
  return source->read_ahead();
}

}  // namespace

BatchAssembler::BatchAssembler(std::shared_ptr<const EpochPlan> plan, int64_t first_step,
                               const AssemblerResources& resources, AssemblerOptions options)
    : plan_(std::move(plan)),
      resources_(Complete(resources)),
      options_(std::move(options)),
      first_loaded_step_(options_.echo >= 1 ? EchoStep::Of(first_step, options_.echo).loaded : 0),
      first_copy_(options_.echo >= 1 ? EchoStep::Of(first_step, options_.echo).copy : 0),
      prefetcher_(*plan_->access(), *resources_.cache, *resources_.arena, first_loaded_step_,
                  ChunkPrefetcher::Limits{options_.prefetch_steps, options_.prefetch_chunks},
                  StartLoads(resources_.source, stop_.get_token())),
      next_step_(first_loaded_step_) {
  if (options_.echo < 1 || resources_.pool->slots() < options_.echo) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "echo = {} needs at least that many slots ({} given)", options_.echo,
                    resources_.pool->slots());
  }
  if (first_step < 0 || first_step > delivered_steps()) {
    throw MakeError(ErrorCode::kInvalidArgument, "step {} is outside epoch {} of {} steps",
                    first_step, plan_->epoch(), delivered_steps());
  }
  if (options_.device_echo > 0 &&
      (options_.echo != 1 || resources_.layout->row_orders() < options_.device_echo)) {
    throw Error(ErrorCode::kInternal, "batch assembler: device echo without room for its orders");
  }
  if (resources_.pool->slot_bytes() < resources_.layout->bytes()) {
    throw Error(ErrorCode::kInternal, "batch assembler: slots smaller than the layout");
  }
  resources_.cache->SetFirstPendingStep(first_loaded_step_);
  thread_ = std::thread([this] { Run(); });
}

BatchAssembler::~BatchAssembler() {
  stop_.request_stop();  // wakes a stage 1 waiting for a slot
  pipeline_context_.cancel_group_execution();
  prefetcher_.Cancel();
  if (thread_.joinable()) thread_.join();
}

PipelineEvent BatchAssembler::Next() { return queue_.Pop(); }

bool BatchAssembler::WaitReady(std::chrono::milliseconds timeout) {
  return queue_.WaitFor(timeout);
}

bool BatchAssembler::ended() const { return queue_.ended(); }

void BatchAssembler::Run() noexcept {
  const size_t slots_per_step = static_cast<size_t>(options_.echo);
  const size_t tokens =
      std::max<size_t>(1, static_cast<size_t>(resources_.pool->slots()) / slots_per_step);
  std::exception_ptr unexpected;
  try {
    resources_.arena->execute([&] {
      tbb::parallel_pipeline(
          tokens,
          tbb::make_filter<void, Job*>(tbb::filter_mode::serial_in_order,
                                       [this](tbb::flow_control& control) -> Job* {
                                         bool end = false;
                                         Job* job = TakeStep(end);
                                         if (end) control.stop();
                                         return job;
                                       }) &
              tbb::make_filter<Job*, Job*>(tbb::filter_mode::parallel,
                                           [this](Job* job) -> Job* {
                                             Assemble(*job);
                                             return job;
                                           }) &
              tbb::make_filter<Job*, void>(tbb::filter_mode::serial_in_order,
                                           [this](Job* job) { Deliver(job); }),
          pipeline_context_);
    });
  } catch (...) {
    // Errors of a step are carried to stage 3; what arrives here is the pipeline's own
    // failure (an allocation in TBB, a bug).
    unexpected = std::current_exception();
  }
  prefetcher_.Wait();
  {
    std::lock_guard lock(jobs_mutex_);
    jobs_.clear();  // steps cancelled mid-flight: their slots go back now
  }
  if (stop_.stop_requested()) return;
  // The first end recorded is the run's: an error stage 3 delivered wins over each of these.
  if (unexpected) queue_.End(unexpected);
  if (failed_.load()) {
    // Unreachable: a failed step always reaches stage 3 unless the run is stopping.
    queue_.End(std::make_exception_ptr(
        Error(ErrorCode::kInternal, "batch assembler stopped without delivering its error")));
  }
  queue_.End(EndOfEpoch{});
}

BatchAssembler::Job* BatchAssembler::TakeStep(bool& end) {
  const int64_t step = next_step_.load(std::memory_order_relaxed);
  if (stop_.stop_requested() || failed_.load() || step >= plan_->steps()) {
    end = true;
    return nullptr;
  }
  auto job = std::make_unique<Job>();
  job->loaded_step = step;
  job->first_copy = step == first_loaded_step_ ? first_copy_ : 0;
  const int made_copies = options_.echo - job->first_made_copy();
  for (int i = 0; i < 1 + made_copies; ++i) {
    std::optional<memory::SlotLease> lease = resources_.pool->Acquire(stop_.get_token());
    if (!lease) {
      end = true;
      return nullptr;
    }
    job->leases.push_back(std::move(*lease));
  }
  job->extras.resize(job->leases.size());
  next_step_.store(step + 1, std::memory_order_relaxed);
  prefetcher_.StepTaken(step);
  Job* raw = job.get();
  std::lock_guard lock(jobs_mutex_);
  jobs_.emplace(raw, std::move(job));
  return raw;
}

void BatchAssembler::Assemble(Job& job) {
  if (stop_.stop_requested()) return;
  const memory::SlotLayout& layout = *resources_.layout;
  try {
    tbb::this_task_arena::isolate([&] {
      const memory::SlotView loaded = layout.View(job.leases[0].bytes());
      job.rows = resources_.gatherer->Gather(plan_->rows_of(job.loaded_step), job.loaded_step,
                                             loaded, plan_->epoch());
      const int64_t epoch = plan_->epoch();
      if (options_.output) {
        NormalizeViews(loaded.images, layout.shape(), job.rows, *options_.output,
                       SampleKeys{epoch, 0, loaded.indices}, layout.capacity(), loaded.output);
      }
      for (int copy = 0; copy < options_.device_echo; ++copy) {
        const std::vector<int64_t> order =
            EchoPermutation(job.rows, options_.seed, epoch, job.loaded_step, copy);
        std::copy(order.begin(), order.end(),
                  loaded.orders.begin() + static_cast<ptrdiff_t>(copy * layout.capacity()));
      }
      if (options_.make_extras && job.first_copy == 0) {
        job.extras[0] =
            options_.make_extras(loaded.indices.first(static_cast<size_t>(job.rows)), epoch, 0);
      }
      const bool renormalize = options_.output && options_.output->renormalize_copies();
      const size_t copies = job.leases.size() - 1;
      tbb::parallel_for(size_t{1}, copies + 1, [&](size_t i) {
        const int copy = job.first_made_copy() + static_cast<int>(i) - 1;
        std::vector<int64_t> permutation =
            EchoPermutation(job.rows, options_.seed, epoch, job.loaded_step, copy);
        const memory::SlotView to = layout.View(job.leases[i].bytes());
        CopyPermuted(layout, loaded, to, permutation, !renormalize);
        if (renormalize) {
          NormalizeViews(to.images, layout.shape(), job.rows, *options_.output,
                         SampleKeys{epoch, copy, to.indices}, layout.capacity(), to.output);
        }
        if (options_.make_extras) {
          job.extras[i] =
              options_.make_extras(to.indices.first(static_cast<size_t>(job.rows)), epoch, copy);
        }
      });
    });
  } catch (const Error& error) {
    job.error =
        std::make_exception_ptr(MakeError(error.code(), "{} [while assembling step {} of epoch {}]",
                                          error.what(), job.loaded_step, plan_->epoch()));
  } catch (...) {
    job.error = std::current_exception();
  }
  if (job.error) failed_.store(true);  // stage 1 takes no more steps; stage 3 delivers in order
  // Outside the isolated region above: prefetch tasks spawned inside it would carry its
  // isolation, and only threads outside any region could run them.
  if (job.loaded_step == first_loaded_step_) prefetcher_.Release();
}

std::unique_ptr<BatchAssembler::Job> BatchAssembler::Release(Job* job) {
  std::lock_guard lock(jobs_mutex_);
  auto it = jobs_.find(job);
  std::unique_ptr<Job> owned = std::move(it->second);
  jobs_.erase(it);
  return owned;
}

void BatchAssembler::Deliver(Job* raw) {
  std::unique_ptr<Job> job = Release(raw);
  // Steps finish here in order: the cache may now evict what only this step needed.
  resources_.cache->SetFirstPendingStep(job->loaded_step + 1);
  if (stop_.stop_requested()) return;
  // Steps after a failed one reach this stage after it (serial_in_order): the queue drops
  // their batches, the run having ended.
  if (job->error) {
    queue_.End(job->error);
    return;
  }
  const memory::SlotLayout& layout = *resources_.layout;
  for (size_t i = 0; i < job->leases.size(); ++i) {
    int copy = i == 0 ? 0 : job->first_made_copy() + static_cast<int>(i) - 1;
    if (i == 0 && job->first_copy > 0) continue;  // resumed past copy 0: only the source
    AssembledBatch batch;
    batch.view = layout.View(job->leases[i].bytes());
    batch.lease = std::move(job->leases[i]);
    batch.epoch = plan_->epoch();
    batch.loaded_step = job->loaded_step;
    batch.copy = copy;
    batch.step = EchoStep{job->loaded_step, copy}.delivered(options_.echo);
    batch.rows = job->rows;
    batch.extras = std::move(job->extras[i]);
    queue_.Push(std::move(batch));
  }
}

}  // namespace h5feed::pipeline
