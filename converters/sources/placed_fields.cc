#include "sources/placed_fields.h"

#include <cstring>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "normalized_boxes.h"
#include "transform/box_geometry.h"
#include "transform/mask_geometry.h"
#include "transform/sample_geometry.h"

namespace h5feed::converters {
namespace {

transform::SampleGeometry Geometry(image::Size source, image::Size stored, image::ResizeMode mode) {
  const image::ResizePlacement p = image::PlaceResize(source, stored, mode);
  return transform::PlacedGeometry(
      {p.from.top, p.from.height, p.to.top, p.to.height, stored.height},
      {p.from.left, p.from.width, p.to.left, p.to.width, stored.width});
}

template <typename T>
std::vector<T> Elements(std::span<const uint8_t> bytes) {
  std::vector<T> elements(bytes.size() / sizeof(T));
  if (!elements.empty()) std::memcpy(elements.data(), bytes.data(), elements.size() * sizeof(T));
  return elements;
}

// A new buffer of exactly the elements' bytes: shrinking `into` in place would keep the
// capacity of the source's values (a 6000 x 6000 mask placed at 512 x 384 kept 72 MB), and the
// value waits in the conversion until its chunk is written.
template <typename T>
void PutElements(std::span<const T> elements, std::vector<uint8_t>& into) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(elements.data());
  into = std::vector<uint8_t>(bytes, bytes + elements.size_bytes());
}

// uint8 values are read where they lie; uint16 ones from a typed copy (MaskCopyBytes).
template <typename T>
void PlaceMask(const transform::SampleGeometry& geometry, image::Size source, image::Size stored,
               uint8_t fill, std::vector<uint8_t>& value) {
  std::vector<T> copy;
  std::span<const T> mask;
  if constexpr (sizeof(T) == 1) {
    mask = std::span<const T>(value);
  } else {
    copy = Elements<T>(value);
    mask = copy;
  }
  std::vector<T> out(static_cast<size_t>(stored.height) * stored.width);
  transform::TransformMask(geometry, mask, {source.height, source.width}, std::span<T>(out), 0,
                           fill);
  PutElements<T>(out, value);
}

}  // namespace

int64_t MaskCopyBytes(FieldType type, image::Size source) {
  return type == FieldType::kUint8 ? 0 : int64_t{source.height} * source.width * 2;
}

void PlaceGeometricFields(const std::string& name, std::span<const FieldSpec> fields,
                          image::Size source, image::Size stored, image::ResizeMode mode,
                          uint8_t mask_fill, std::vector<std::vector<uint8_t>>& values,
                          BoxCoordinates coordinates) {
  const bool moved = source.height != stored.height || source.width != stored.width;
  const transform::SampleGeometry geometry =
      moved ? Geometry(source, stored, mode) : transform::SampleGeometry{};
  for (size_t f = 0; f < fields.size(); ++f) {
    const FieldSpec& spec = fields[f];
    std::vector<uint8_t>& value = values[f];
    if (spec.kind == FieldKind::kMask) {
      const size_t element = ElementBytes(spec.type);
      if (value.size() != static_cast<size_t>(source.height) * source.width * element) {
        throw MakeError(ErrorCode::kInvalidArgument,
                        "{}: mask field \"{}\" holds {} bytes, not the {} x {} {} values of its "
                        "image; give a mask of the image's own height and width",
                        name, spec.name, value.size(), source.height, source.width,
                        ToString(spec.type));
      }
      if (!moved) continue;
      if (spec.type == FieldType::kUint8) {
        PlaceMask<uint8_t>(geometry, source, stored, mask_fill, value);
      } else {
        PlaceMask<uint16_t>(geometry, source, stored, mask_fill, value);
      }
    } else if (spec.kind == FieldKind::kBoxes) {
      if (value.size() % (4 * sizeof(float)) != 0) {
        throw MakeError(ErrorCode::kInvalidArgument,
                        "{}: boxes field \"{}\" holds {} bytes, not K x 4 float32", name, spec.name,
                        value.size());
      }
      // Its labels and values, which lose the boxes it loses.
      std::vector<size_t> per_box;
      const size_t count = value.size() / (4 * sizeof(float));
      for (size_t l = 0; l < fields.size(); ++l) {
        if (!IsPerBox(fields[l].kind) || fields[l].boxes != spec.name) continue;
        per_box.push_back(l);
        const size_t value_bytes = BoxValueBytes(fields[l]);
        if (values[l].size() != count * value_bytes) {
          throw MakeError(ErrorCode::kInvalidArgument,
                          "{}: boxes field \"{}\" holds {} boxes but field \"{}\" ({}) holds "
                          "{} bytes, not {} per box; give one value per box",
                          name, spec.name, count, fields[l].name, fields[l].Describe(),
                          values[l].size(), value_bytes);
        }
      }
      // Here, at the image's own size: a resize would leave each normalized box under a pixel
      // and drop it, and the Writer would see none.
      const std::string problem = coordinates == BoxCoordinates::kChecked
                                      ? NormalizedBoxesProblem(value, source.height, source.width)
                                      : std::string();
      if (!problem.empty()) {
        throw MakeError(ErrorCode::kInvalidArgument, "{}: boxes field \"{}\" {}", name, spec.name,
                        problem);
      }
      if (!moved) continue;
      const std::vector<float> boxes = Elements<float>(value);
      std::vector<float> kept_boxes(boxes.size());
      std::vector<int64_t> kept_index(count);
      const auto kept =
          static_cast<size_t>(transform::TransformBoxes(geometry, boxes, kept_boxes, kept_index));
      PutElements<float>(std::span<const float>(kept_boxes).first(4 * kept), value);
      for (size_t l : per_box) {
        const size_t value_bytes = BoxValueBytes(fields[l]);
        std::vector<uint8_t> carried(kept * value_bytes);
        transform::CopyKeptValues(values[l], value_bytes,
                                  std::span<const int64_t>(kept_index).first(kept), carried.data());
        values[l] = std::move(carried);
      }
    }
  }
}

}  // namespace h5feed::converters
