#include "loader/own_size_reading.h"

#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "pipeline/own_size_sample.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"

namespace h5feed::loader {
namespace {

constexpr char kNeedsCrop[] =
    " holds images at their own size, and a batch needs one size: read it with "
    "output.augment.random_resized_crop (training; Python augment=h5feed.Augment("
    "random_resized_crop=224)) or resize_shorter with a center_crop no larger (validation; "
    "resize_shorter=256, center_crop=224), with normalize = true";

}  // namespace

ReadingPlan PlanReading(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  ReadingPlan plan{options, dataset.shape, std::nullopt};
  if (!dataset.own_size) return plan;
  const AugmentOptions& augment = options.output.augment;
  const bool random_resized = augment.random_resized_crop.height > 0;
  const bool resize_and_crop = augment.resize_shorter > 0 && augment.center_crop_height > 0 &&
                               augment.center_crop_height <= augment.resize_shorter &&
                               augment.center_crop_width <= augment.resize_shorter;
  if (!options.normalize || (!random_resized && !resize_and_crop)) {
    throw MakeError(ErrorCode::kInvalidArgument, "{}{}", dataset.path, kNeedsCrop);
  }
  if (!options.output.views.empty()) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} holds images at their own size; several views (output.views) of such files are not "
        "supported yet: read it with output.augment",
        dataset.path);
  }
  if (augment.max_output_height > 0 || augment.max_output_width > 0) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{} holds images at their own size; changing the delivered size between epochs "
                    "(max_output_height/width) is not supported for such files yet",
                    dataset.path);
  }
  // The crop, checked and set up as for a file of the largest image's size; per image,
  // transform::ForImage adapts it.
  OutputOptions crop_only = options.output;
  crop_only.augment.random_flip = false;
  const transform::OutputSpec spec = transform::MakeOutputSpec(
      transform::MakeNormalizeParams(options.mean.data(), options.std.data(), 3,
                                     static_cast<int>(dataset.shape.channels)),
      dataset.shape, crop_only, options.seed, options.option_names);
  plan.crop = spec.augment;
  plan.gathered =
      ImageShape{spec.augment.out_height, spec.augment.out_width, dataset.shape.channels};
  AugmentOptions& rest = plan.options.output.augment;
  rest = AugmentOptions{};
  rest.random_flip = augment.random_flip;
  rest.antialias = augment.antialias;
  return plan;
}

}  // namespace h5feed::loader

namespace h5feed::loader {

pipeline::BatchGatherer::SampleMaker OwnSizeSampleMaker(const index::DatasetIndex& dataset,
                                                        const ReadingPlan& reading,
                                                        bool region_decode) {
  return [&dataset, crop = *reading.crop, region_decode](
             int64_t epoch, int64_t row, std::span<const uint8_t> stored, uint8_t* dest) {
    const index::StoredImage& image = dataset.images[static_cast<size_t>(row)];
    try {
      pipeline::MakeOwnSizeSample(crop, epoch, row, {image.shape(), image.encoding}, stored, dest,
                                  region_decode);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
      throw MakeError(ErrorCode::kCorrupt, "row {} of {} (chunk {}): {}", row, dataset.path,
                      dataset.own_size_rows.chunk_of(row), e.what());
    }
  };
}

}  // namespace h5feed::loader
