#pragma once
// Restore's checks and arithmetic: whether a LoaderState belongs to this loader (and, when it
// does not, what differs), and where the resumed run starts: at a step of the epoch's plain
// order, or, when the job changed size during the epoch, at a step of this rank's elastic
// order of the rest of it (sampler/elastic_order.h). StateAt is the inverse, for State().
//
// Each stretch of an epoch is one world size. A state taken on W ranks and restored on W
// continues its stretch; restored on M != W, the stretch ends at the state's step (if it
// delivered anything: a stretch of no steps is dropped, and its rows dealt to M instead) and
// a new one starts on M. An echo copy not yet delivered when a stretch ends is not delivered
// (its rows were, by the step's first copy).

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/loader.h"
#include "h5feed/loader_options.h"
#include "loader/state_fingerprint.h"
#include "sampler/epoch_order.h"

namespace h5feed::loader {

// Where a run of the loader starts. Plain value.
struct ResumePoint {
  int64_t epoch = 0;
  // The epoch's finished stretches on other world sizes, oldest first; empty: the epoch's
  // plain order.
  std::vector<EpochStretch> stretches;
  // With stretches: this rank's order of the current stretch (ElasticOrder).
  std::vector<int64_t> order;
  int64_t step = 0;           // steps of the current stretch already delivered, echoes counted
  int64_t stretch_steps = 0;  // steps the current stretch delivers in all, echoes counted

  // The epoch step the current stretch began at: the sum of the stretches' steps.
  int64_t first_step() const;
};

// The point `state` resumes a loader with `options` at, on `geometry` whose plain epoch has
// `plain_steps` delivered steps per rank. Throws Error(kInvalidArgument) as Loader::Restore
// documents.
ResumePoint PlanResume(const LoaderState& state, const StateIdentity& identity,
                       const sampler::SampleGeometry& geometry, const LoaderOptions& options,
                       int64_t plain_steps);

// The state of a loader that has delivered `step` steps of `epoch` (earlier stretches
// included), after the finished stretches `stretches`.
LoaderState StateAt(int64_t epoch, int64_t step, const std::vector<EpochStretch>& stretches,
                    const StateIdentity& identity, const LoaderOptions& options);

}  // namespace h5feed::loader
