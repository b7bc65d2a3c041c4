#include "loader/view_sizes.h"

#include <utility>

#include "h5feed/error.h"

namespace h5feed::loader {

ViewSizes::ViewSizes(const std::optional<transform::OutputViews>& opened,
                     const transform::NormalizeParams& normalize, const ReadingPlan& reading,
                     const OutputOptions& output)
    : opened_(opened), normalize_(normalize), reading_(reading), output_(output) {
  if (opened_) next_ = std::make_shared<const transform::OutputViews>(*opened_);
}

void ViewSizes::SetOutputSize(int64_t height, int64_t width, int spec) {
  if (!opened_) {
    throw Error(ErrorCode::kInvalidArgument,
                "SetOutputSize: the loader delivers uint8 images as stored; open it with "
                "normalize = true and a random resized crop or a center crop to size");
  }
  const OutputOptions output = transform::WithOutputSize(output_, spec, height, width);
  transform::OutputViews views = reading_.MakeViews(normalize_, output, &*opened_);
  transform::CheckFitsRoom(*opened_, views);
  views.room_bytes = opened_->room_bytes;  // the buffers keep Open's layout
  output_ = output;
  next_ = std::make_shared<const transform::OutputViews>(std::move(views));
}

std::shared_ptr<const transform::OutputViews> ViewSizes::NextRun() { return next_; }

}  // namespace h5feed::loader
