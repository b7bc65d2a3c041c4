#pragma once
// How a Loader reads a file of images at their own size (docs/format.md, version 2): a batch
// needs one image size, so the view's crop (RandomResizedCrop, or Resize + CenterCrop) runs
// as each sample is gathered, from its stored bytes into the slot (pipeline/own_size_sample.h).
// Everything after the gather then reads the slot's rows as a file of images of the delivered
// size: the flip and the normalization (CPU or GPU), echo, the GPU stage. For a file of one
// image size nothing changes.

#include <optional>
#include <string>

#include "h5feed/image_shape.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "pipeline/batch_gatherer.h"
#include "transform/augment.h"

namespace h5feed::loader {

struct ReadingPlan {
  // The options the rest of the loader works with: for an own-size file, the user's with the
  // crop taken out of output.augment (the flip stays), as the gather has made it.
  LoaderOptions options;
  // The images the slots hold: the file's shape, or the crop's size for an own-size file.
  ImageShape gathered;
  // Set for an own-size file: the crop the gather makes (transform::ForImage adapts it to each
  // image), flip off.
  std::optional<transform::AugmentParams> crop;
};

// Throws Error(kInvalidArgument) naming the options to set when an own-size file is opened
// without a crop that gives one size (output.augment.random_resized_crop for training,
// resize_shorter with center_crop of at most that size for validation) or without normalize,
// and Error(kUnsupported) for what own-size reading does not do yet: several views
// (output.views) and a size changed between epochs (max_output_height/width).
ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset);

// The gatherer's sample maker for an own-size file read as `reading` says
// (pipeline/own_size_sample.h), with or without region decoding
// (LoaderOptions::jpeg_region_decode). A damaged image's error names the row, the file and the
// chunk. Borrows `dataset`, which must outlive it.
pipeline::BatchGatherer::SampleMaker OwnSizeSampleMaker(const index::DatasetIndex& dataset,
                                                        const ReadingPlan& reading,
                                                        bool region_decode);

}  // namespace h5feed::loader
