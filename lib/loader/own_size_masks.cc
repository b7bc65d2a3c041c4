#include "loader/own_size_masks.h"

#include <cstdint>
#include <cstring>
#include <span>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/augment.h"
#include "transform/mask_geometry.h"
#include "transform/output_spec.h"
#include "transform/sample_geometry.h"

namespace h5feed::loader {
namespace {

// Every view's gather crop of `mask` (height x width values of T) into `out`, a mask of the
// stacked image's width `stride`, at each view's room.
template <typename T>
void CropViews(const transform::OutputViews& views, std::span<const uint8_t> mask, int64_t height,
               int64_t width, int64_t epoch, int64_t row, uint8_t* out, int64_t stride,
               int64_t out_values) {
  const std::span<const T> values(reinterpret_cast<const T*>(mask.data()), mask.size() / sizeof(T));
  for (int v = 0; v < views.count(); ++v) {
    const transform::AugmentParams crop =
        transform::ForImage(views.gather_crops[static_cast<size_t>(v)], height, width);
    transform::SampleGeometry geometry =
        transform::GeometryOf(crop, transform::DrawTransform(crop, epoch, row, 0));
    geometry.flip = false;  // the view's flip is the delivered window's, per echo copy
    const transform::AugmentParams& room = views.views[static_cast<size_t>(v)].augment;
    const int64_t at = int64_t{room.crop_top} * stride + room.crop_left;
    transform::TransformMask(
        geometry, values, {height, width},
        std::span<T>(reinterpret_cast<T*>(out) + at, static_cast<size_t>(out_values - at)), stride);
  }
}

// The error for a mask row that is not its image's size.
Error WrongMaskSize(const BatchField& mask, int64_t row, size_t bytes, int64_t height,
                    int64_t width) {
  return MakeError(ErrorCode::kCorrupt,
                   "row {} of mask field {} is {} bytes, not the {} x {} {} values of its "
                   "image: the file is damaged; write it again",
                   row, mask.spec.name, bytes, height, width, ToString(mask.spec.type));
}

}  // namespace

std::vector<pipeline::BatchGatherer::MadeField> OwnSizeMaskMakers(
    const std::shared_ptr<const BatchFields>& fields, const ImageShape& stacked,
    const std::shared_ptr<const transform::OutputViews>& run_views, bool device) {
  std::vector<pipeline::BatchGatherer::MadeField> makers;
  if (!device) return makers;
  for (const BatchField& field : fields->fields) {
    // A mask with a shape is a file of one image size's, copied as stored (SlotArrayFields).
    if (field.spec.kind != FieldKind::kMask || field.spec.row_bytes() > 0) continue;
    const size_t element = ElementBytes(field.spec.type);
    const int64_t values = stacked.height * stacked.width;
    const BatchField* mask = &field;
    const BatchFields* all = fields.get();
    if (all->image_sizes.empty()) {
      // Images at their own size that all have the slot's one size, read as they are: each
      // row is the slot's row, as in a file of one image size.
      const size_t bytes = static_cast<size_t>(values) * element;
      makers.push_back({bytes, [=](int64_t /*epoch*/, int64_t row, uint8_t* dest) {
                          const std::span<const uint8_t> stored = mask->column->row(row);
                          if (stored.size() != bytes) {
                            throw WrongMaskSize(*mask, row, stored.size(), stacked.height,
                                                stacked.width);
                          }
                          std::memcpy(dest, stored.data(), bytes);
                        }});
      continue;
    }
    makers.push_back({static_cast<size_t>(values) * element,
                      [=, &run_views](int64_t epoch, int64_t row, uint8_t* dest) {
                        const auto [height, width] = all->image_sizes[static_cast<size_t>(row)];
                        const std::span<const uint8_t> stored = mask->column->row(row);
                        if (stored.size() !=
                            static_cast<size_t>(int64_t{height} * width) * element) {
                          throw WrongMaskSize(*mask, row, stored.size(), height, width);
                        }
                        if (element == 2) {
                          CropViews<uint16_t>(*run_views, stored, height, width, epoch, row, dest,
                                              stacked.width, values);
                        } else {
                          CropViews<uint8_t>(*run_views, stored, height, width, epoch, row, dest,
                                             stacked.width, values);
                        }
                      }});
  }
  return makers;
}

}  // namespace h5feed::loader
