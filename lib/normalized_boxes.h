#pragma once
// Boxes normalized to the image's size (0 to 1, as YOLO's and TensorFlow's data sets store
// them) where a file stores pixels (docs/format.md, "Masks and boxes"). In pixels such boxes all
// sit in the image's top-left pixel, less than a pixel wide or tall but [0, 0, 1, 1], and a
// loader drops every box under a pixel: stored as given, a data set of them would lose every
// box without a word. The Writer refuses them (AppendFields, at the stored image's size), and so
// does a conversion that moves boxes with their image (converters/sources/placed_fields.h, at
// the image's own size, before a resize leaves each of them under a pixel and drops it). A
// guess at what a user gave: boxes read as pixels (COCO's bbox, an h5feed file's boxes) are
// not checked (BoxCoordinates::kPixels, h5feed/writer.h).
// Stateless; thread-safe.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace h5feed {

// The smallest image (on either side) on which boxes that all lie within 0 to 1 are taken for
// normalized ones. On a smaller image, a few pixels on a side, both readings are plausible, and
// the boxes are kept as given.
inline constexpr int64_t kNormalizedBoxesMinSide = 4;

// Boxes that may be normalized whatever their image: every box of a row within 0 to 1, and
// box `index` the first of some area (boxes all of none, a sample's placeholder [0, 0, 0, 0],
// are no sign of it).
struct UnitBoxes {
  int64_t index = 0;
  float box[4] = {};
};

// UnitBoxes of `boxes` (a boxes field's row: K x 4 float32 x1, y1, x2, y2) when every box lies
// within 0 to 1, one at least of some area; else nullopt (and for a row that is not whole boxes,
// which is FieldRowProblem's, field_row_check.h).
std::optional<UnitBoxes> FindUnitBoxes(std::span<const uint8_t> boxes);

// "" unless `unit` lie on an image of `height` x `width`, each kNormalizedBoxesMinSide or more;
// else what is wrong, to follow the row's name: "has every box within 0 to 1 (box 1 is [0.1,
// 0.25, 0.5, 0.75]), but its image is 32 x 40 (height x width): ...; give x1, y1, x2, y2 in the
// image's pixels (normalized boxes times [width, height, width, height])".
std::string NormalizedBoxesProblem(const UnitBoxes& unit, int64_t height, int64_t width);

// Both: "" unless `boxes` are normalized to 0-1 on an image of `height` x `width`.
std::string NormalizedBoxesProblem(std::span<const uint8_t> boxes, int64_t height, int64_t width);

}  // namespace h5feed
