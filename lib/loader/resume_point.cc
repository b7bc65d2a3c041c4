#include "loader/resume_point.h"

#include <string>
#include <utility>

#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "make_error.h"
#include "sampler/elastic_order.h"
#include "sampler/epoch_steps.h"

namespace h5feed::loader {
namespace {

// Throws Error(kInvalidArgument) for a state Restore cannot resume, the message led by Restore's
// name as the caller spells it (option_names.h: Python's load_state_dict).
class Refusal {
 public:
  explicit Refusal(const LoaderOptions& options)
      : restore_(NameMethod(options.option_names, "Loader", "Restore")),
        set_epoch_(NameMethod(options.option_names, "Loader", "SetEpoch")),
        state_(NameMethod(options.option_names, "Loader", "State")) {}

  template <typename... Args>
  [[noreturn]] void operator()(fmt::format_string<Args...> format, Args&&... args) const {
    throw MakeError(ErrorCode::kInvalidArgument, "{}: {}", restore_,
                    fmt::format(format, std::forward<Args>(args)...));
  }

  const std::string& set_epoch() const { return set_epoch_; }
  const std::string& state() const { return state_; }

 private:
  std::string restore_, set_epoch_, state_;
};

int64_t StepsOf(const std::vector<EpochStretch>& stretches) {
  int64_t steps = 0;
  for (const EpochStretch& stretch : stretches) steps += stretch.steps;
  return steps;
}

// The checks that need no order: the seed, the file and order options, the state's own
// consistency. Returns the state's world size (a legacy state's is this loader's).
int CheckIdentity(const LoaderState& state, const StateIdentity& identity,
                  const LoaderOptions& options) {
  const Refusal refuse(options);
  if (state.seed != options.seed) {
    refuse(
        "the state was taken with seed {} but this loader uses seed {}; open it with the state's "
        "seed",
        state.seed, options.seed);
  }
  if (state.world_size == 0 && state.stretches.empty() && state.order_key.empty()) {
    if (state.fingerprint == identity.fingerprint) {
      refuse(
          "the state has this h5feed's fingerprint but no world_size: it was stored without "
          "its world_size, stretches and order_key; keep every field of the state {} returned, "
          "or start an epoch with {}",
          refuse.state(), refuse.set_epoch());
    }
    if (state.fingerprint != identity.legacy_fingerprint) {
      refuse(
          "the state has no world_size (it was saved by an h5feed from before elastic resume), so "
          "it resumes only the same file with the same order options (batch_size, drop_last_batch, "
          "sampler, shard.world_size, shard.drop_last, echo), and {} opened with these options "
          "differs in one of them",
          identity.path);
    }
    return options.shard.world_size;
  }
  if (state.world_size < 1) {
    refuse("the state's world_size is {}; it must be at least 1 (the state is damaged)",
           state.world_size);
  }
  if (!state.order_key.empty() && state.order_key != identity.order_key) {
    refuse(
        "the state was taken on another file or with other order options than {} opened with these "
        "options: {}; open the loader as the state was taken, or start an epoch with {}",
        identity.path, OrderKeyDifferences(state.order_key, identity.order_key),
        refuse.set_epoch());
  }
  if (state.fingerprint != identity.fingerprint) {
    if (state.order_key.empty()) {
      refuse(
          "the state was taken on another file geometry or with other order options (batch_size, "
          "drop_last_batch, sampler, shard.drop_last, echo) than {} opened with these options",
          identity.path);
    }
    refuse(
        "the state's fingerprint does not match its order_key ({}): the state was altered or "
        "damaged",
        state.order_key);
  }
  for (size_t j = 0; j < state.stretches.size(); ++j) {
    const EpochStretch& stretch = state.stretches[j];
    if (stretch.world_size < 1 || stretch.steps < 1) {
      refuse(
          "stretch {} of the state has world_size {} and {} steps; both must be at least 1 (the "
          "state is damaged)",
          j, stretch.world_size, stretch.steps);
    }
  }
  const int64_t before = StepsOf(state.stretches);
  if (state.step < before) {
    refuse(
        "the state's step {} lies before the end of its earlier stretches, at step {} (the state "
        "is damaged)",
        state.step, before);
  }
  return state.world_size;
}

void CheckStep(const Refusal& refuse, int64_t step, int64_t steps, const std::string& of) {
  if (step < 0 || step > steps) {
    refuse("step {} is outside {}'s {} steps", step, of, steps);
  }
}

}  // namespace

int64_t ResumePoint::first_step() const { return StepsOf(stretches); }

ResumePoint PlanResume(const LoaderState& state, const StateIdentity& identity,
                       const sampler::SampleGeometry& geometry, const LoaderOptions& options,
                       int64_t plain_steps) {
  const int state_world = CheckIdentity(state, identity, options);
  const Refusal refuse(options);
  if (state.epoch < 0) {
    refuse(
        "the state's epoch is {}, and epochs count from 0 (the state is damaged); pass a state "
        "{} returned, or start an epoch with {}",
        state.epoch, refuse.state(), refuse.set_epoch());
  }
  ResumePoint point;
  point.epoch = state.epoch;
  point.stretches = state.stretches;
  point.step = state.step - point.first_step();
  if (state_world != options.shard.world_size) {
    // The state's stretch ends here; one that delivered nothing leaves its rows to this one.
    if (point.step > 0) point.stretches.push_back(EpochStretch{state_world, point.step});
    point.step = 0;
  }
  if (point.stretches.empty()) {
    CheckStep(refuse, point.step, plain_steps, "the epoch");
    point.stretch_steps = plain_steps;
    return point;
  }
  const sampler::StepRules rules{options.batch_size, options.drop_last_batch, options.echo};
  try {
    point.order = sampler::ElasticOrder(geometry, options.sampler, options.shard, options.seed,
                                        point.epoch, rules, point.stretches);
  } catch (const Error& error) {
    refuse("{}", error.what());
  }
  const sampler::EpochSteps rest =
      sampler::CutIntoSteps(static_cast<int64_t>(point.order.size()), options.batch_size,
                            options.drop_last_batch, options.echo);
  CheckStep(refuse, point.step, rest.delivered(), "this rank's share of the rest of the epoch");
  point.stretch_steps = rest.delivered();
  return point;
}

LoaderState StateAt(int64_t epoch, int64_t step, const std::vector<EpochStretch>& stretches,
                    const StateIdentity& identity, const LoaderOptions& options) {
  LoaderState state;
  state.epoch = epoch;
  state.step = step;
  state.seed = options.seed;
  state.fingerprint = identity.fingerprint;
  state.world_size = options.shard.world_size;
  state.stretches = stretches;
  state.order_key = identity.order_key;
  return state;
}

}  // namespace h5feed::loader
