#pragma once
// What a run of the loader (pipeline/batch_assembler.h) tells the sources its chunks are read
// from, at its start: that their loads end once its stop is requested, and (read_ahead) which
// chunks come next. A chunk source is one (chunk_source.h); so are the loader's image chunks
// and the field chunks it reads with them, as one (loader/streamed_fields.h).
//
// Thread-safety: both are called between runs, from one thread (no load in flight).

#include <stop_token>

namespace h5feed::source {

class ReadAhead;

class RunControl {
 public:
  virtual ~RunControl() = default;

  // Loads waiting on the medium, and those that start later, end at once with
  // Error(kCancelled) once `stop` is requested: a run that stops does not wait for a stalled
  // server. Called at the start of each run, with the run's token, before its first load.
  virtual void StopLoadsOn(std::stop_token stop) = 0;

  // The medium's reading ahead of loads, told which chunks come next (pipeline/
  // chunk_prefetcher.h), for this run; null where reads do not wait on anyone. Asked at the
  // start of each run.
  virtual ReadAhead* read_ahead() = 0;
};

}  // namespace h5feed::source
