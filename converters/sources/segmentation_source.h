#pragma once
// The SampleSource of a segmentation data set (`h5feed convert segmentation IMAGES_DIR
// MASKS_DIR OUT`): each image paired with its PNG mask by name (segmentation_pairs.h), the
// image fitted to its stored size (fitted_images.h) and the mask moved with it by nearest
// neighbour (placed_fields.h), into the field `mask` (docs/format.md, "Masks and boxes").
//
// The mask's values are the class ids as stored: a palette PNG's indices, a gray PNG's values
// (png_mask_decoder.h). Nothing is remapped: Pascal VOC's 255 ("void", the objects' borders and
// the pixels its annotators left out) stays 255, the value a trainer's loss ignores
// (CrossEntropyLoss(ignore_index=255)); a pixel the conversion's `pad` adds is 0 (VOC's
// background). The field is uint8, or uint16 when any mask is a 16-bit PNG (8-bit ones are then
// widened).
//
// Skipped with their reasons, as broken image files are (the report lists them; --strict makes
// them errors): an image without a mask, a mask whose size differs from its image's, a mask that
// is not a class-id PNG or does not decode. Images have no labels (the file is unlabelled); each
// sample's source is the image's path relative to IMAGES_DIR.
//
// Every image's and mask's header is read at open (in parallel): that decides the mask type,
// the sizes to check, and the stored shape's bound. A mask is decoded outside the memory
// budget: it is a third of its image's decoded bytes (half, for 16-bit), and the image it goes
// with is paid for.

#include <memory>
#include <optional>
#include <string>

#include "sample_source.h"
#include "sources/fitted_images.h"

namespace h5feed::converters {

struct SegmentationOptions {
  FitOptions fit;
  // Removed from an image's (a mask's) file name before pairing, where its stem ends with it
  // (Cityscapes: "_leftImg8bit" and "_gtFine_labelIds"); empty: names pair as they are.
  std::string image_suffix;
  std::string mask_suffix;
  // A text file of the image keys to convert, one a line (KeepListed: VOC's
  // ImageSets/Segmentation/train.txt); empty: every image of the folder.
  std::string image_list;
};

// Throws what ListSegmentationPairs and FittedImages throw, and Error(kCorrupt) when no image
// with a usable mask has a readable header.
std::unique_ptr<SampleSource> OpenSegmentation(const std::string& images_root,
                                               const std::string& masks_root,
                                               const SegmentationOptions& options);

}  // namespace h5feed::converters
