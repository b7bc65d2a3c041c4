#pragma once
// How a run of the pipeline ended: the end of its epoch, or the error that stopped it. A run
// ends once: the first end recorded is the run's, later ones are ignored, and every ask after
// it gets that same end (the end is sticky; a new run, made by SetEpoch / Restore, starts with
// a new RunEnd). The one record of a run's end for host and device delivery alike: the
// assembler's BatchQueue holds it and hands it out after the run's last batch; the GPU feed
// and the loader ask the assembler again rather than keep a copy.
//
// Thread-safety: none of its own (a value); its owner guards it (BatchQueue, under its mutex).

#include <exception>
#include <optional>
#include <utility>
#include <variant>

namespace h5feed::pipeline {

struct EndOfEpoch {};

class RunEnd {
 public:
  // Records `end` unless the run already ended; returns whether this call ended it.
  bool Record(EndOfEpoch end) { return RecordFirst(end); }
  bool Record(std::exception_ptr error) { return RecordFirst(std::move(error)); }

  bool reached() const { return end_.has_value(); }

  // The run's end as an event of `Event`, a delivery's variant holding EndOfEpoch and
  // std::exception_ptr (PipelineEvent, the GPU path's DeviceEvent). Requires reached().
  template <typename Event>
  Event As() const {
    if (const auto* error = std::get_if<std::exception_ptr>(&*end_)) return Event(*error);
    return Event(EndOfEpoch{});
  }

 private:
  bool RecordFirst(std::variant<EndOfEpoch, std::exception_ptr> end) {
    if (end_) return false;
    end_ = std::move(end);
    return true;
  }

  std::optional<std::variant<EndOfEpoch, std::exception_ptr>> end_;
};

}  // namespace h5feed::pipeline
