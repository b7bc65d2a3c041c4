#pragma once
// COCO's instances JSON (instances_train2017.json and the like, the format of
// cocodataset.org/#format-data) read into what a detection file stores: each image's boxes in
// xyxy pixels, their contiguous labels, and each box's iscrowd and area as the JSON gives them.
//   - categories sorted by id; label i is the i-th (COCO's 80 ids run 1..90 with gaps: label
//     0 is id 1 "person", label 79 id 90 "toothbrush"), as torchvision's detection references
//     and most detectors number them (without a background class);
//   - images sorted by id (torchvision's CocoDetection order), each with its annotations' boxes
//     in the JSON's order; an image without annotation has none;
//   - a box [x, y, w, h] becomes [x, y, x + w, y + h], clipped to the image's width and height
//     and dropped when that leaves it no width or height, as torchvision's detection reference
//     (ConvertCocoPolysToMask) does; dropped boxes are counted;
//   - crowd annotations (iscrowd 1: one box around many objects, whose segmentation is RLE)
//     are dropped and counted, as the references drop them for training, unless keep_crowd.
// Thread-safety: a value, read once.

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::converters {

struct CocoImage {
  int64_t id = 0;
  std::string file_name;  // relative to the images folder
  int height = 0;         // as the JSON says
  int width = 0;
  std::vector<float> boxes;      // K x 4, x1 y1 x2 y2
  std::vector<int64_t> labels;   // K contiguous labels
  std::vector<int64_t> iscrowd;  // K: 1 for a crowd annotation (kept with keep_crowd), else 0
  // K: the annotation's "area" (its segmentation's pixels), or width x height of its bbox when
  // it has none, as pycocotools computes a result's.
  std::vector<double> area;
};

struct CocoCategory {
  int64_t id = 0;
  std::string name;
};

struct CocoAnnotations {
  std::vector<CocoImage> images;         // sorted by id
  std::vector<CocoCategory> categories;  // sorted by id: label i is categories[i]
  int64_t crowd_dropped = 0;             // crowd annotations dropped (not keep_crowd)
  int64_t empty_dropped = 0;             // boxes left with no width or height once clipped
  // Images whose file_name an image of a smaller id also has: each id is converted, a sample
  // of its own with only its own annotations' boxes, so the count goes in the report's notes.
  int64_t repeated_files = 0;
  std::string repeated_file;  // one of them, for the note; empty when none
};

// Reads `path`. Ids, widths and heights are integers, or numbers of an integer's value (640.0,
// as pycocotools takes them). Throws Error(kNotFound) for a missing file; Error(kCorrupt)
// naming the file and what is wrong for JSON that does not parse (with the line and column
// where it stops), a missing or mistyped member ("annotation 12 has no "bbox" of 4 numbers",
// "image 3 has "width": 0.5, not a whole number of pixels"), an "iscrowd" that is not a number
// or a boolean, an "area" that is not a number, two images or categories of one id, an annotation
// naming an image or category id the file does not list.
CocoAnnotations ReadCocoAnnotations(const std::string& path, bool keep_crowd);

}  // namespace h5feed::converters
