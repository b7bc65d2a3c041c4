#pragma once
// How a Loader reads a file's rows into its slots. Rows stored as raw pixels of one shape are
// copied as they lie in their chunks. Rows of their own sizes or encodings (docs/format.md,
// "Images at their own size") cannot share a batch as they are, so each view's crop
// (RandomResizedCrop, or Resize + CenterCrop) is made as a sample is gathered, from its stored
// bytes into the view's room of the slot's image (transform/own_size_views.h,
// pipeline/own_size_sample.h). Everything after the gather then reads the slot's rows as
// images of that one stacked shape: the flip and the normalization (CPU or GPU), echo, the GPU
// stage.

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
  // The file's image shape (the largest image's where rows have their own).
  ImageShape stored;
  // The images the slots hold: the stored shape, or the views' crops stacked.
  ImageShape gathered;
  // Whether each row is cropped into the slot as it is gathered, rather than copied.
  bool crops_at_gather = false;

  // The views `output` asks for, normalized with `normalize`, as this file is read: of its
  // images, or windows of the gathered crops. `opened`: null at Open; for a later run's sizes
  // (Loader::SetOutputSize), the views of Open, whose layout the slots keep. Throws what
  // MakeOutputViews / MakeOwnSizeViews throw.
  transform::OutputViews MakeViews(const transform::NormalizeParams& normalize,
                                   const OutputOptions& output,
                                   const transform::OutputViews* opened) const;
};

// Throws Error(kInvalidArgument), naming the file and the options to set, when a file whose
// rows have their own sizes is opened without normalize or with a view whose crop does not give
// one size (output.augment.random_resized_crop for training, resize_shorter with center_crop of
// at most that size for validation).
ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset);

// How the gatherer fills a slot's row: null where rows are copied as they lie; else every
// view's crop of the run's views `run_views` (set by the loader between runs only), with or
// without region decoding (LoaderOptions::jpeg_region_decode). A damaged image's error names
// the row, the file and the chunk. Borrows `dataset` and `run_views`, which must outlive it.
pipeline::BatchGatherer::SampleMaker SampleMakerOf(
    const ReadingPlan& plan, const index::DatasetIndex& dataset,
    const std::shared_ptr<const transform::OutputViews>& run_views);

}  // namespace h5feed::loader
