#pragma once
// The views a normalizing loader delivers, run by run: those of Open (whose room per image
// fixed the buffers), and the sizes SetOutputSize asks for, which take effect when the next
// run starts (SetEpoch, Restore), so a run's batches all have one size.
//
// Thread-safety: the loader's thread only. The views handed to a run are immutable and shared
// by its batches, which may outlive the loader.

#include <cstdint>
#include <memory>
#include <optional>

#include "h5feed/output_options.h"
#include "loader/reading_plan.h"
#include "transform/normalize.h"
#include "transform/output_views.h"

namespace h5feed::loader {

class ViewSizes {
 public:
  // `opened`: the views of Open (none when not normalizing), made by `reading` (borrowed: it
  // must outlive this) as later sizes are.
  ViewSizes(const std::optional<transform::OutputViews>& opened,
            const transform::NormalizeParams& normalize, const ReadingPlan& reading,
            const OutputOptions& output);

  // View spec `spec` delivers height x width from the next run on. Throws
  // Error(kInvalidArgument) as Loader::SetOutputSize documents.
  void SetOutputSize(int64_t height, int64_t width, int spec);

  // The views of the run that starts now (null when not normalizing).
  std::shared_ptr<const transform::OutputViews> NextRun();

 private:
  const std::optional<transform::OutputViews> opened_;
  const transform::NormalizeParams normalize_;
  const ReadingPlan& reading_;
  OutputOptions output_;  // with the sizes set so far
  std::shared_ptr<const transform::OutputViews> next_;
};

}  // namespace h5feed::loader
