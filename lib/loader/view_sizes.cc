#include "loader/view_sizes.h"

#include <utility>

#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "make_error.h"

namespace h5feed::loader {

ViewSizes::ViewSizes(const std::optional<transform::OutputViews>& opened,
                     const transform::NormalizeParams& normalize, const ReadingPlan& reading,
                     const OutputOptions& output)
    : opened_(opened), normalize_(normalize), reading_(reading), output_(output) {
  if (opened_) next_ = std::make_shared<const transform::OutputViews>(*opened_);
}

void ViewSizes::SetOutputSize(int64_t height, int64_t width, int spec) {
  const OptionNames& names = reading_.options.option_names;
  if (!opened_) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{}: the loader delivers uint8 images as stored; open it with {} and a random "
                    "resized crop ({}) or a center crop ({}) to size",
                    NameMethod(names, "Loader", "SetOutputSize"),
                    NameOption(names, "LoaderOptions", "normalize"),
                    NameOption(names, "LoaderOptions", "output.augment.random_resized_crop"),
                    NameOption(names, "LoaderOptions", "output.augment.center_crop"));
  }
  const OutputOptions output = transform::WithOutputSize(output_, spec, height, width, names);
  transform::OutputViews views = reading_.MakeViews(normalize_, output, &*opened_);
  transform::CheckFitsRoom(*opened_, views, output, names);
  views.room_bytes = opened_->room_bytes;  // the buffers keep Open's layout
  output_ = output;
  next_ = std::make_shared<const transform::OutputViews>(std::move(views));
}

std::shared_ptr<const transform::OutputViews> ViewSizes::NextRun() { return next_; }

}  // namespace h5feed::loader
