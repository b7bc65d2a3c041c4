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
#include <optional>

#include "h5feed/image_shape.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "pipeline/batch_gatherer.h"
#include "transform/normalize.h"
#include "transform/output_views.h"
#include "transform/own_size_views.h"

namespace h5feed::loader {

struct ReadingPlan {
  LoaderOptions options;  // the user's, kept by the loader
  // The file's image shape (the largest image's where rows have their own).
  ImageShape stored;
  // The images the slots hold: the stored shape, or the views' crops stacked.
  ImageShape gathered;
  // Whether each row is cropped into the slot as it is gathered, rather than copied.
  bool crops_at_gather = false;
  // Whether each row is decoded whole into the slot as it is gathered: a file of images at their
  // own size whose images all have one size (h5feed.write without size= writes such a file from
  // CIFAR), read without a crop that gives one size. The slots then hold images of that size,
  // which everything after the gather reads as it reads a file of one image size.
  bool decodes_at_gather = false;
  // Where rows are cropped at the gather: the images whose Resize(S) is the narrowest and the
  // flattest (every row's size is in the file's table), which a center crop must fit.
  std::optional<transform::ResizeExtremes> extremes = std::nullopt;

  // The views `output` asks for, normalized with `normalize`, as this file is read: of its
  // images, or windows of the gathered crops. `opened`: null at Open; for a later run's sizes
  // (Loader::SetOutputSize), the views of Open, whose layout the slots keep. Throws what
  // MakeOutputViews / MakeOwnSizeViews throw.
  transform::OutputViews MakeViews(const transform::NormalizeParams& normalize,
                                   const OutputOptions& output,
                                   const transform::OutputViews* opened) const;
};

// A file whose rows have their own sizes is read with each view's crop made at the gather, or,
// where its images all have one size and no view asks random_resized_crop or resize_shorter,
// as a file of that one size (decodes_at_gather), its masks and boxes too. Otherwise
// throws Error(kInvalidArgument), naming the file and the options to set, when such a file is
// opened without normalize or with a view whose crop does not give one size
// (output.augment.random_resized_crop for training, resize_shorter with a center_crop that every
// image's resized size holds for validation).
ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset);

// How the gatherer fills a slot's row: null where rows are copied as they lie; the whole
// decoded image where the plan decodes_at_gather; else every view's crop of the run's views
// `run_views` (set by the loader between runs only), with or without region decoding
// (LoaderOptions::jpeg_region_decode). A damaged image's error names the row, the file and the
// chunk. Borrows `dataset` and `run_views`, which must outlive it.
pipeline::BatchGatherer::SampleMaker SampleMakerOf(
    const ReadingPlan& plan, const index::DatasetIndex& dataset,
    const std::shared_ptr<const transform::OutputViews>& run_views);

}  // namespace h5feed::loader
