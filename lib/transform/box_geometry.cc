#include "transform/box_geometry.h"

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {

int64_t TransformBoxes(const SampleGeometry& geometry, std::span<const float> boxes,
                       std::span<float> out, std::span<const int64_t> classes,
                       std::span<int64_t> out_classes) {
  const size_t count = boxes.size() / 4;
  if (boxes.size() % 4 != 0 || out.size() < boxes.size()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box geometry: {} coordinates in, room for {} out; pass 4 per box (x1, y1, "
                    "x2, y2) and room for as many",
                    boxes.size(), out.size());
  }
  if (!classes.empty() && (classes.size() != count || out_classes.size() < count)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box geometry: {} classes for {} boxes, room for {}; pass one class per box "
                    "(or none) and room for as many",
                    classes.size(), count, out_classes.size());
  }
  const auto width = static_cast<float>(geometry.columns.out);
  int64_t kept = 0;
  for (size_t k = 0; k < count; ++k) {
    const float* box = boxes.data() + 4 * k;
    float x1 = MapCoordinate(geometry.columns, box[0]);
    const float y1 = MapCoordinate(geometry.rows, box[1]);
    float x2 = MapCoordinate(geometry.columns, box[2]);
    const float y2 = MapCoordinate(geometry.rows, box[3]);
    if (geometry.flip) {
      const float left = width - x2;
      x2 = width - x1;
      x1 = left;
    }
    // Written so that a NaN coordinate fails the test and drops its box.
    if (!(x2 - x1 >= kMinBoxSide && y2 - y1 >= kMinBoxSide)) continue;
    float* dest = out.data() + 4 * kept;
    dest[0] = x1;
    dest[1] = y1;
    dest[2] = x2;
    dest[3] = y2;
    if (!classes.empty()) out_classes[static_cast<size_t>(kept)] = classes[k];
    ++kept;
  }
  return kept;
}

}  // namespace h5feed::transform
