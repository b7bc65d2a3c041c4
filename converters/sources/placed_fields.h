#pragma once
// The masks and boxes of a sample, moved with its image when a conversion resizes it
// (h5feed.write's python_sample_source.h, `convert segmentation`, `convert coco`): the placement
// ResizeInto gives the image (converters/image/resize.h, PlaceResize) becomes a geometry
// (transform/sample_geometry.h, PlacedGeometry), and the image's mask goes through it by nearest
// neighbour (class ids are never blended), its boxes are scaled, shifted and clipped to the stored
// image, a box left under a pixel wide or tall dropped with its class and values: the rules a
// loader applies to every crop (docs/augment.md), so a stored mask is the nearest resize of the
// given one to the image's stored size.
//
// Thread-safe: a pure function of its arguments.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/writer.h"
#include "image/resize.h"

namespace h5feed::converters {

// Moves the sample `name`'s values of the geometric fields among `fields` (values[f] the row's
// value of fields[f], as SampleInfo::fields holds them) from its image's own size `source` to
// the size `stored` the image was stored at by `mode` (kStretch for a cap on the longer side).
// A mask's border under kPad gets `mask_fill`. Values of an image stored at its own size are
// kept as they are. Throws Error(kInvalidArgument) naming the sample for a mask that is not
// source's height x width, boxes that are not 4 floats each, boxes normalized to 0-1 on an image
// of 4 pixels a side or more unless `coordinates` is kPixels (normalized_boxes.h: checked at
// `source`, before the resize would drop each of them as under a pixel; a source that read its
// boxes as pixels, COCO's, passes kPixels and gives its Writer the same), or box labels or
// values of another count than their boxes.
void PlaceGeometricFields(const std::string& name, std::span<const FieldSpec> fields,
                          image::Size source, image::Size stored, image::ResizeMode mode,
                          uint8_t mask_fill, std::vector<std::vector<uint8_t>>& values,
                          BoxCoordinates coordinates = BoxCoordinates::kChecked);

// The bytes PlaceGeometricFields copies a mask of `type` and size `source` into while it moves
// it (beside the mask and its placed values), for a caller that lends the memory: uint8 values
// are read where they lie, uint16 ones from a typed copy.
int64_t MaskCopyBytes(FieldType type, image::Size source);

}  // namespace h5feed::converters
