#include "transform/box_geometry.h"

#include <cstring>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {

int64_t TransformBoxes(const SampleGeometry& geometry, std::span<const float> boxes,
                       std::span<float> out, std::span<int64_t> kept_index) {
  const size_t count = boxes.size() / 4;
  if (boxes.size() % 4 != 0 || out.size() < boxes.size()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box geometry: {} coordinates in, room for {} out; pass 4 per box (x1, y1, "
                    "x2, y2) and room for as many",
                    boxes.size(), out.size());
  }
  if (!kept_index.empty() && kept_index.size() < count) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box geometry: room for {} kept indices for {} boxes; pass room for one per "
                    "box (or none)",
                    kept_index.size(), count);
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
    if (!kept_index.empty()) kept_index[static_cast<size_t>(kept)] = static_cast<int64_t>(k);
    ++kept;
  }
  return kept;
}

void CopyKeptValues(std::span<const uint8_t> values, size_t value_bytes,
                    std::span<const int64_t> kept_index, uint8_t* out) {
  for (size_t j = 0; j < kept_index.size(); ++j) {
    std::memcpy(out + j * value_bytes,
                values.data() + static_cast<size_t>(kept_index[j]) * value_bytes, value_bytes);
  }
}

}  // namespace h5feed::transform
