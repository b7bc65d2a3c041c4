#include "transform/view_geometry.h"

#include "transform/augment.h"
#include "transform/output_spec.h"

namespace h5feed::transform {

SampleGeometry ViewGeometry(const OutputViews& views, int view, int64_t height, int64_t width,
                            int64_t epoch, int64_t row, int copy) {
  const auto v = static_cast<size_t>(view);
  const AugmentParams& delivered = views.views[v].augment;
  const SampleTransform drawn = DrawTransform(delivered, epoch, row, copy);
  if (views.gather_crops.empty()) return GeometryOf(delivered, drawn);
  const AugmentParams crop = ForImage(views.gather_crops[v], height, width);
  SampleGeometry geometry = GeometryOf(crop, DrawTransform(crop, epoch, row, 0));
  geometry.flip = drawn.flip;
  return geometry;
}

}  // namespace h5feed::transform
