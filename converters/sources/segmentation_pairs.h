#pragma once
// Pairs the images of a segmentation data set with their masks by name, as Pascal VOC
// (JPEGImages/2007_000032.jpg with SegmentationClass/2007_000032.png), ADE20K
// (images/training/ADE_train_00000001.jpg with annotations/training/ADE_train_00000001.png) and
// Cityscapes (leftImg8bit/train/aachen/aachen_000000_000019_leftImg8bit.png with
// gtFine/train/aachen/aachen_000000_000019_gtFine_labelIds.png) lay them out:
//   - every file under the images folder (subfolders walked, symlinks followed) whose name ends
//     with one of kImageExtensions is an image; every .png file under the masks folder a mask;
//   - a file's key is its path relative to its folder without the extension, and without
//     `image_suffix` (images) or `mask_suffix` (masks) where its name ends with it: an image
//     and a mask of one key are a pair ("aachen/aachen_000000_000019" with the suffixes
//     "_leftImg8bit" and "_gtFine_labelIds");
//   - two masks of one key (a.png and a_mask.png with the suffix "_mask"): the one whose name
//     carries the suffix is the mask;
//   - images and masks may share one folder (x.jpg beside x.png, or x.png beside x_mask.png):
//     a file taken as a mask is then not an image too (it would pair with itself);
//   - images are listed sorted by their relative path; an image without a mask is listed with
//     none (the conversion skips it, saying so); a mask without an image is counted.
// VOC's SegmentationClass/ holds masks of only some of JPEGImages/: the images without one are
// the skips the report lists, which is why a missing mask is a skip, not an error.

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/option_names.h"

namespace h5feed::converters {

struct SegmentationPair {
  std::string image;  // relative to the images folder, '/'-separated
  std::string mask;   // relative to the masks folder; empty: the image has none
  std::string key;    // what they pair by (PairKey), for messages
};

struct SegmentationListing {
  std::string images_root;
  std::string masks_root;
  std::string image_suffix;             // as given, for messages
  std::string mask_suffix;              // as given, for naming the mask an image looked for
  std::vector<SegmentationPair> pairs;  // one per image, sorted by its path
  int64_t masks_without_image = 0;
  std::string mask_without_image;  // one of them, for the report's note; empty when none
};

// Throws Error(kNotFound) when a folder does not exist or holds no image (no mask), and
// Error(kInvalidArgument) when no image pairs with a mask, naming an image and the mask key it
// looked for, so that a wrong folder or suffix is found at once.
SegmentationListing ListSegmentationPairs(const std::string& images_root,
                                          const std::string& masks_root,
                                          const std::string& image_suffix = "",
                                          const std::string& mask_suffix = "",
                                          const OptionNames& names = {});

// Keeps the pairs whose image's key is a line of the text file `list_path` (Pascal VOC's
// ImageSets/Segmentation/train.txt: one name stem a line; blank lines and surrounding spaces
// ignored), in the listing's order: VOC's JPEGImages/ holds 17,125 images, of which the
// 2,913 of its segmentation splits have masks. Masks of images left out are not counted as
// without an image. Throws Error(kNotFound) for a list that cannot be read, and
// Error(kInvalidArgument) for one that names an image the folder does not hold, or none.
void KeepListed(SegmentationListing& listing, const std::string& list_path);

// The key of `relative_path` (its path without the extension, and without `suffix` where its
// stem ends with it and is longer): "aachen/aachen_1_leftImg8bit.png" with "_leftImg8bit"
// gives "aachen/aachen_1".
std::string PairKey(const std::string& relative_path, const std::string& suffix);

}  // namespace h5feed::converters
