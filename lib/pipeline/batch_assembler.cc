#include "pipeline/batch_assembler.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

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
  bool assembled = false;  // guarded by delivery_mutex_

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
  stop_.request_stop();  // wakes the run's thread waiting for a slot; steps not begun do nothing
  prefetcher_.Cancel();
  if (thread_.joinable()) thread_.join();
}

PipelineEvent BatchAssembler::Next() { return queue_.Pop(); }

bool BatchAssembler::WaitReady(std::chrono::milliseconds timeout) {
  return queue_.WaitFor(timeout);
}

bool BatchAssembler::ended() const { return queue_.ended(); }

void BatchAssembler::Run() noexcept {
  std::exception_ptr unexpected;
  try {
    resources_.arena->execute([&] { AssembleSteps(); });
  } catch (...) {
    // Errors of a step are delivered in its place; what arrives here is the run's own
    // failure (an allocation, a bug).
    unexpected = std::current_exception();
  }
  prefetcher_.Wait();
  {
    std::lock_guard lock(delivery_mutex_);
    undelivered_.clear();  // steps of a stopped run: their slots go back now
  }
  if (stop_.stop_requested()) return;
  // The first end recorded is the run's: an error delivered in its step's place wins over each
  // of these.
  if (unexpected) queue_.End(unexpected);
  if (failed_.load()) {
    // Unreachable: a failed step is always delivered unless the run is stopping.
    queue_.End(std::make_exception_ptr(
        Error(ErrorCode::kInternal, "batch assembler stopped without delivering its error")));
  }
  queue_.End(EndOfEpoch{});
}

void BatchAssembler::AssembleSteps() {
  try {
    bool more = true;
    while (more) {
      // Nothing is in flight here, so this thread may wait for the trainer to free a slot.
      bool end = false;
      Job* step = Take(/*wait=*/true, end);
      more = !end;
      if (step) steps_.run([this, step] { RunStep(*step); });
      // Working on the arena's tasks meanwhile: this step, and those taken while slots are
      // free by the tasks it and every step after it leave.
      steps_.wait();
    }
  } catch (...) {
    // A step's own errors are delivered in its place; what a task throws (an allocation)
    // ends the run, once every task is done.
    steps_.cancel();
    steps_.wait();
    throw;
  }
}

BatchAssembler::Job* BatchAssembler::Take(bool wait, bool& end) {
  std::lock_guard lock(take_mutex_);
  std::unique_ptr<Job> job = TakeStep(wait, end);
  if (!job) return nullptr;
  Job* step = job.get();
  std::lock_guard delivery(delivery_mutex_);
  undelivered_.push_back(std::move(job));
  return step;
}

void BatchAssembler::TryStep() {
  bool end = false;
  if (Job* step = Take(/*wait=*/false, end)) RunStep(*step);
}

void BatchAssembler::RunStep(Job& step) {
  // A step is taken by the thread about to assemble it, so that the steps taken are those in
  // flight (the prefetcher reads ahead of them): the next one by a task another thread takes
  // while this one assembles, or this one next; and one more as this step ends, for a slot
  // the trainer freed meanwhile.
  steps_.run([this] { TryStep(); });
  Assemble(step);
  Finish(step);
  steps_.run([this] { TryStep(); });
}

std::unique_ptr<BatchAssembler::Job> BatchAssembler::TakeStep(bool wait, bool& end) {
  if (stop_.stop_requested() || failed_.load() || next_step_ >= plan_->steps()) {
    end = true;
    return nullptr;
  }
  const int first_copy = next_step_ == first_loaded_step_ ? first_copy_ : 0;
  const size_t slots = static_cast<size_t>(1 + options_.echo - std::max(first_copy, 1));
  while (next_leases_.size() < slots) {
    std::optional<memory::SlotLease> lease =
        wait ? resources_.pool->Acquire(stop_.get_token()) : resources_.pool->TryAcquire();
    if (!lease) {
      end = stop_.stop_requested();  // else none is free now
      return nullptr;
    }
    next_leases_.push_back(std::move(*lease));
  }
  auto job = std::make_unique<Job>();
  job->loaded_step = next_step_;
  job->first_copy = first_copy;
  job->leases = std::move(next_leases_);
  next_leases_.clear();
  job->extras.resize(job->leases.size());
  prefetcher_.StepTaken(next_step_);
  ++next_step_;
  return job;
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
    job.error = std::make_exception_ptr(
        error.Reworded(fmt::format("{} [while assembling step {} of epoch {}]", error.what(),
                                   job.loaded_step, plan_->epoch())));
  } catch (...) {
    job.error = std::current_exception();
  }
  if (job.error) failed_.store(true);  // no more steps are taken; Finish delivers in order
  // Outside the isolated region above: prefetch tasks spawned inside it would carry its
  // isolation, and only threads outside any region could run them.
  if (job.loaded_step == first_loaded_step_) prefetcher_.Release();
}

void BatchAssembler::Finish(Job& job) {
  std::lock_guard lock(delivery_mutex_);
  job.assembled = true;
  while (!undelivered_.empty() && undelivered_.front()->assembled) {
    Deliver(*undelivered_.front());
    undelivered_.pop_front();
  }
}

void BatchAssembler::Deliver(Job& job) {
  // Steps finish here in order: the cache may now evict what only this step needed.
  resources_.cache->SetFirstPendingStep(job.loaded_step + 1);
  if (stop_.stop_requested()) return;
  // Steps after a failed one are delivered after it: the queue drops their batches, the run
  // having ended.
  if (job.error) {
    queue_.End(job.error);
    return;
  }
  const memory::SlotLayout& layout = *resources_.layout;
  for (size_t i = 0; i < job.leases.size(); ++i) {
    int copy = i == 0 ? 0 : job.first_made_copy() + static_cast<int>(i) - 1;
    if (i == 0 && job.first_copy > 0) continue;  // resumed past copy 0: only the source
    AssembledBatch batch;
    batch.view = layout.View(job.leases[i].bytes());
    batch.lease = std::move(job.leases[i]);
    batch.epoch = plan_->epoch();
    batch.loaded_step = job.loaded_step;
    batch.copy = copy;
    batch.step = EchoStep{job.loaded_step, copy}.delivered(options_.echo);
    batch.rows = job.rows;
    batch.extras = std::move(job.extras[i]);
    queue_.Push(std::move(batch));
  }
}

}  // namespace h5feed::pipeline
