#pragma once
// How a Loader reads a file, of one image size or of images at their own size (docs/format.md,
// version 2). For the latter a batch needs one size per view, so each view's crop
// (RandomResizedCrop, or Resize + CenterCrop) runs as a sample is gathered, from its stored
// bytes into the view's band of the slot's image (transform/own_size_views.h,
// pipeline/own_size_sample.h). Everything after the gather then reads the slot's rows as a
// file of images of that one stacked shape: the flip and the normalization (CPU or GPU), echo,
// the GPU stage. For a file of one image size nothing changes.

#include <memory>

#include "h5feed/image_shape.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "pipeline/batch_gatherer.h"
#include "transform/normalize.h"
#include "transform/output_views.h"

namespace h5feed::loader {

struct ReadingPlan {
  LoaderOptions options;  // the user's, kept by the loader
  // The file's image shape (an own-size file's: its largest image's).
  ImageShape stored;
  // The images the slots hold: the file's shape, or an own-size file's views' crops stacked.
  ImageShape gathered;
  bool own_size = false;

  // The views `output` asks for, normalized with `normalize`, as this file is read: of its
  // images, or windows of the gathered crops. `opened`: null at Open; for a later run's sizes
  // (Loader::SetOutputSize), the views of Open, whose layout the slots keep. Throws what
  // MakeOutputViews / MakeOwnSizeViews throw.
  transform::OutputViews MakeViews(const transform::NormalizeParams& normalize,
                                   const OutputOptions& output,
                                   const transform::OutputViews* opened) const;
};

// Throws Error(kInvalidArgument), naming the file and the options to set, when an own-size
// file is opened without normalize or with a view whose crop does not give one size
// (output.augment.random_resized_crop for training, resize_shorter with center_crop of at most
// that size for validation).
ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset);

// The gatherer's sample maker for an own-size file: every view's crop of the run's views
// `run_views` (set by the loader between runs only), with or without region decoding
// (LoaderOptions::jpeg_region_decode). A damaged image's error names the row, the file and the
// chunk. Borrows `dataset` and `run_views`, which must outlive it.
pipeline::BatchGatherer::SampleMaker OwnSizeSampleMaker(
    const index::DatasetIndex& dataset,
    const std::shared_ptr<const transform::OutputViews>& run_views, bool region_decode);

}  // namespace h5feed::loader
