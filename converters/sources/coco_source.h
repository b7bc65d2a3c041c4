#pragma once
// The SampleSource of COCO detection data (`h5feed convert coco ANNOTATIONS.json IMAGES_DIR
// OUT`): each image the JSON lists (coco_annotations.h), fitted to its stored size
// (fitted_images.h), with its boxes moved with it (placed_fields.h) into the fields `boxes`
// (K x 4 float32 xyxy in the stored image's pixels), `box_labels` (K int64) and the box values
// `iscrowd` (K int64) and `area` (K float64, as the JSON gives it, never recomputed), dropped
// with the boxes a resize drops, and the category table as the file's box classes
// (/box_classes, /box_class_ids: docs/format.md).
//
// An image whose file is missing or broken, or whose header's size is not the JSON's (its
// boxes would be in another image's pixels), is skipped with its reason, as an image folder's
// broken files are. Images have no labels (the file is unlabelled); each sample's source is
// the JSON's file_name. The stored shape's bound comes from the JSON's sizes, so no header is
// read at open.

#include <memory>
#include <string>

#include "sample_source.h"
#include "sources/fitted_images.h"

namespace h5feed::converters {

struct CocoOptions {
  FitOptions fit;
  bool keep_crowd = false;  // keep crowd annotations' boxes (iscrowd 1)
};

// Throws what ReadCocoAnnotations and FittedImages throw, Error(kInvalidArgument) for a JSON
// that lists no image or no category, and Error(kNotFound) when none of a spread of up to 32
// of its images is in `images_root` (the folder of another split, or the one above).
std::unique_ptr<SampleSource> OpenCoco(const std::string& annotations_path,
                                       const std::string& images_root, const CocoOptions& options);

}  // namespace h5feed::converters
