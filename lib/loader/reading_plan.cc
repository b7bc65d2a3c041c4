#include "loader/reading_plan.h"

#include <array>
#include <span>
#include <string>

#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "make_error.h"
#include "pipeline/own_size_sample.h"
#include "transform/own_size_views.h"

namespace h5feed::loader {

transform::OutputViews ReadingPlan::MakeViews(const transform::NormalizeParams& normalize,
                                              const OutputOptions& output,
                                              const transform::OutputViews* opened) const {
  if (!crops_at_gather) {
    return transform::MakeOutputViews(normalize, stored, output, options.seed,
                                      options.option_names);
  }
  return transform::MakeOwnSizeViews(normalize, stored, extremes, output, options.seed,
                                     options.option_names, opened);
}

namespace {

// "; every image of it is 20 x 30 x 3: ..." when a file of images at their own size holds one
// size only (h5feed.write without size= writes such a file, whatever its images' sizes), else
// "": the refusal then says that one size at write time reads without an augmentation.
std::string OneSizeHint(const index::DatasetIndex& dataset) {
  if (dataset.rows.samples() == 0 || !dataset.holds_one_size()) return "";
  const ImageShape& one = dataset.shape;
  return fmt::format(
      "; every image of it is {} x {} x {} (height, width, channels): written at that one size "
      "(h5feed.write's size=({}, {}), convert's --size {}x{}) it is read as it is, without an "
      "augmentation",
      one.height, one.width, one.channels, one.height, one.width, one.height, one.width);
}

// Whether a view asks for a crop made from each image's own size (RandomResizedCrop, or Resize
// then CenterCrop): those are made at the gather, whatever the images' sizes.
bool AsksOwnSizeCrop(const OutputOptions& output) {
  for (int s = 0; s < transform::SpecCount(output); ++s) {
    const AugmentOptions& augment = transform::SpecOf(output, s);
    if (augment.random_resized_crop.height > 0 || augment.resize_shorter > 0) return true;
  }
  return false;
}

}  // namespace

ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  ReadingPlan plan{options, dataset.shape, dataset.shape, !dataset.rows.uniform()};
  if (!plan.crops_at_gather) return plan;
  // Read as it is, as the file would be had it been written at that size: no resize, and every
  // option of a file of one image size applies (normalize or not, center_crop, padding, flip),
  // masks and boxes too: their rows are of that size (batch_fields.h).
  if (!AsksOwnSizeCrop(options.output) && dataset.holds_one_size()) {
    plan.crops_at_gather = false;
    plan.decodes_at_gather = true;
    return plan;
  }
  if (!options.normalize) {
    const auto name = [&options](const char* field) {
      return NameOption(options.option_names, "LoaderOptions", field);
    };
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} holds images at their own size, and a batch needs one size: read it with "
                    "{} and {} (training, torchvision's RandomResizedCrop) or {} with {} "
                    "(validation, Resize and CenterCrop){}",
                    dataset.path, name("normalize"), name("output.augment.random_resized_crop"),
                    name("output.augment.resize_shorter"), name("output.augment.center_crop"),
                    OneSizeHint(dataset));
  }
  transform::ResizeExtremes extremes;
  for (int64_t row = 0; row < dataset.rows.samples(); ++row)
    extremes.Add(dataset.rows.at(row).shape);
  if (dataset.rows.samples() > 0) plan.extremes = extremes;
  try {
    const transform::NormalizeParams normalize = transform::MakeNormalizeParams(
        options.mean.data(), options.std.data(), static_cast<int>(options.mean.size()),
        static_cast<int>(dataset.shape.channels));
    plan.gathered = transform::StackedShape(plan.MakeViews(normalize, options.output, nullptr));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kInvalidArgument) throw;
    throw MakeError(e.code(), "{} holds images at their own size: {}{}", dataset.path, e.what(),
                    OneSizeHint(dataset));
  }
  return plan;
}

pipeline::BatchGatherer::SampleMaker SampleMakerOf(
    const ReadingPlan& plan, const index::DatasetIndex& dataset,
    const std::shared_ptr<const transform::OutputViews>& run_views) {
  if (plan.decodes_at_gather) {
    return [&dataset](int64_t /*epoch*/, int64_t row, const StoredRow& image,
                      std::span<const uint8_t> stored, uint8_t* dest) {
      try {
        pipeline::MakeWholeSample({image.shape, image.encoding}, stored, dest);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kCorrupt) throw;
        throw MakeError(ErrorCode::kCorrupt, "row {} of {} (chunk {}): {}", row, dataset.path,
                        dataset.chunk_rows().chunk_of(row), e.what());
      }
    };
  }
  if (!plan.crops_at_gather) return nullptr;
  const bool region_decode = plan.options.jpeg_region_decode;
  return [&dataset, &run_views, region_decode](int64_t epoch, int64_t row, const StoredRow& image,
                                               std::span<const uint8_t> stored, uint8_t* dest) {
    const transform::OutputViews& views = *run_views;
    std::array<pipeline::SampleCrop, transform::OutputViews::kMaxViews> crops;
    const int64_t stride = transform::StackedRowStride(views);
    for (int v = 0; v < views.count(); ++v) {
      crops[static_cast<size_t>(v)] = {views.gather_crops[static_cast<size_t>(v)],
                                       transform::PlaceOf(views, v, dest), stride};
    }
    try {
      pipeline::MakeOwnSizeSample(std::span(crops).first(static_cast<size_t>(views.count())), epoch,
                                  row, {image.shape, image.encoding}, stored, region_decode);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
      throw MakeError(ErrorCode::kCorrupt, "row {} of {} (chunk {}): {}", row, dataset.path,
                      dataset.chunk_rows().chunk_of(row), e.what());
    }
  };
}

}  // namespace h5feed::loader
