#pragma once
// The masks of a file of images at their own size, for the GPU stage (docs/gpu.md, "Fields on
// the device"): each row's mask is cropped at the gather as its image is (reading_plan.h,
// SampleMakerOf): every view's gather crop (transform::ForImage, drawn for echo copy 0) by
// nearest neighbour, into the view's room of a mask laid out as the slot's stacked image
// (transform/own_size_views.h), one value per pixel. The GPU stage then crops the view's window
// and flips it for each echo copy (cuda/field_kernels.h, CropMasks) as it does for a file of
// one image size, so the delivered mask is the CPU path's (transform::ViewGeometry's crop then
// the view's flip; a window at scale 1 moves no pixel). Where the images all have one size and
// are read as they are (ReadingPlan::decodes_at_gather), each mask row is copied whole, as a
// file of one image size's stored row is.
//
// Thread-safe: the makers read only immutable columns and the run's views, which the loader
// changes between runs only.

#include <memory>
#include <vector>

#include "h5feed/image_shape.h"
#include "loader/batch_fields.h"
#include "pipeline/batch_gatherer.h"
#include "transform/output_views.h"

namespace h5feed::loader {

// A maker per asked mask of `fields` whose rows have their own sizes (masks without a shape),
// in the order asked, when `device`; none otherwise: a crop at the gather where fields.
// image_sizes is set, else a copy of the row. `stacked` is the slot's image shape.
// Borrows `fields` and `run_views`, which must outlive the makers. A maker throws
// Error(kCorrupt) naming the field and the row when a mask row is not its image's size.
std::vector<pipeline::BatchGatherer::MadeField> OwnSizeMaskMakers(
    const std::shared_ptr<const BatchFields>& fields, const ImageShape& stacked,
    const std::shared_ptr<const transform::OutputViews>& run_views, bool device);

}  // namespace h5feed::loader
