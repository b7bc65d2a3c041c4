#include "loader/geometric_fields.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/box_geometry.h"
#include "transform/mask_geometry.h"
#include "transform/view_geometry.h"

namespace h5feed::loader {
namespace {

// What one view does to the sample at dataset row `row` stored as `height` x `width`.
struct ViewOf {
  const transform::OutputViews* views;
  int64_t epoch;
  int copy;

  int count() const { return views ? views->count() : 1; }

  transform::SampleGeometry Geometry(int view, int64_t row, int64_t height, int64_t width) const {
    if (views) return transform::ViewGeometry(*views, view, height, width, epoch, row, copy);
    transform::CropBox whole;
    whole.height = static_cast<int32_t>(height);
    whole.width = static_cast<int32_t>(width);
    return transform::ResizedCropGeometry(whole, whole.height, whole.width, false);
  }
};

template <typename T>
std::span<const T> ValuesOf(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}

// The next sample's stored mask on its way into the cache while this one is transformed: the
// masks lie in a column read whole at open, far larger than the caches, in the order of the
// batch's rows.
void Prefetch(std::span<const uint8_t> stored) {
  for (size_t at = 0; at < stored.size(); at += 64) __builtin_prefetch(stored.data() + at);
}

template <typename T>
void MaskInto(const transform::SampleGeometry& geometry, std::span<const uint8_t> row,
              const transform::MaskShape& shape, std::span<uint8_t> out, uint8_t fill) {
  transform::TransformMask(geometry, ValuesOf<T>(row), shape,
                           std::span<T>(reinterpret_cast<T*>(out.data()), out.size() / sizeof(T)),
                           0, fill);
}

// Sample i's mask through its geometry into `out`, its (Ho, Wo) place in the batch's tensor.
void MaskOfSample(const BatchField& field, const ViewOf& of, int view, const ImageShape& shape,
                  const std::vector<std::array<int32_t, 2>>& sizes, int64_t row, uint8_t fill,
                  int64_t out_height, int64_t out_width, std::span<uint8_t> out) {
  const size_t element = ElementBytes(field.spec.type);
  // Its image's stored size; a mask row of another size is refused below.
  const int64_t height = sizes.empty() ? shape.height : sizes[static_cast<size_t>(row)][0];
  const int64_t width = sizes.empty() ? shape.width : sizes[static_cast<size_t>(row)][1];
  const std::span<const uint8_t> stored = field.column->row(row);
  if (stored.size() != static_cast<size_t>(height * width) * element) {
    throw MakeError(ErrorCode::kCorrupt,
                    "row {} of mask field {} is {} bytes, not the {} x {} {} values of its "
                    "image: the file is damaged; write it again",
                    row, field.spec.name, stored.size(), height, width, ToString(field.spec.type));
  }
  const transform::SampleGeometry geometry = of.Geometry(view, row, height, width);
  // The tensor is not zeroed when made: TransformMask writes each of its Ho x Wo values (the
  // padding with `fill`). A geometry delivering another extent would leave some unwritten:
  // those are zero, as they were when the tensor was zeroed whole.
  if (geometry.rows.out != out_height || geometry.columns.out != out_width) {
    std::fill(out.begin(), out.end(), uint8_t{0});
  }
  if (field.spec.type == FieldType::kUint16) {
    MaskInto<uint16_t>(geometry, stored, {height, width}, out, fill);
  } else {
    MaskInto<uint8_t>(geometry, stored, {height, width}, out, fill);
  }
}

// Samples a task of the parallel loop transforms: enough that the prefetch of the next one
// overlaps the transform of this one, few enough that a batch spreads over the arena.
constexpr int64_t kMaskGrain = 8;

GeometricTensor Masks(const BatchField& field, const ViewOf& of, int view, const ImageShape& shape,
                      const std::vector<std::array<int32_t, 2>>& sizes,
                      std::span<const int64_t> indices) {
  const auto batch = static_cast<int64_t>(indices.size());
  const size_t element = ElementBytes(field.spec.type);
  int64_t out_height = shape.height;  // without views, the stored size (one image size)
  int64_t out_width = shape.width;
  uint8_t fill = 0;  // without views the geometry is the identity: nothing is padded
  if (of.views) {
    fill = of.views->mask_fill;
    out_height = of.views->views[static_cast<size_t>(view)].augment.out_height;
    out_width = of.views->views[static_cast<size_t>(view)].augment.out_width;
  }
  GeometricTensor tensor;
  tensor.shape = {batch, out_height, out_width};
  const size_t sample_bytes = static_cast<size_t>(out_height * out_width) * element;
  tensor.bytes =
      std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(batch) * sample_bytes);
  const std::span<uint8_t> bytes(tensor.bytes.get(), static_cast<size_t>(batch) * sample_bytes);
  // Over the samples, on the arena of the calling thread (the assembler's: the loader's
  // threads). Each sample writes its own part of the tensor; the result does not depend on
  // how the samples are shared out. TBB carries the first error out of the loop.
  const auto transform_samples = [&](const tbb::blocked_range<int64_t>& samples) {
    for (int64_t i = samples.begin(); i < samples.end(); ++i) {
      if (i + 1 < samples.end()) Prefetch(field.column->row(indices[static_cast<size_t>(i + 1)]));
      MaskOfSample(field, of, view, shape, sizes, indices[static_cast<size_t>(i)], fill, out_height,
                   out_width, bytes.subspan(static_cast<size_t>(i) * sample_bytes, sample_bytes));
    }
  };
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, batch, static_cast<size_t>(kMaskGrain)),
                    transform_samples);
  return tensor;
}

// The boxes of field `boxes` in one view, padded, and the values of each of its per-box fields
// (`per_box`, box labels and values, into out_per_box beside them): each kept box's value, in
// the kept boxes' order, carried as its bytes are by the kept boxes' stored indices
// (TransformBoxes, CopyKeptValues).
void Boxes(const BatchField& boxes, std::span<const BatchField* const> per_box, const ViewOf& of,
           int view, const ImageShape& shape, const std::vector<std::array<int32_t, 2>>& sizes,
           std::span<const int64_t> indices, GeometricTensor& out_boxes,
           std::span<GeometricTensor* const> out_per_box) {
  const auto batch = static_cast<int64_t>(indices.size());
  std::vector<std::vector<float>> kept(static_cast<size_t>(batch));
  std::vector<std::vector<int64_t>> kept_index(static_cast<size_t>(batch));
  int64_t most = 0;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t row = indices[static_cast<size_t>(i)];
    const int64_t height = sizes.empty() ? shape.height : sizes[static_cast<size_t>(row)][0];
    const int64_t width = sizes.empty() ? shape.width : sizes[static_cast<size_t>(row)][1];
    const std::span<const float> stored = ValuesOf<float>(boxes.column->row(row));
    std::vector<float>& box = kept[static_cast<size_t>(i)];
    std::vector<int64_t>& index = kept_index[static_cast<size_t>(i)];
    box.resize(stored.size());
    index.resize(stored.size() / 4);
    const int64_t count =
        transform::TransformBoxes(of.Geometry(view, row, height, width), stored, box, index);
    box.resize(static_cast<size_t>(count) * 4);
    index.resize(static_cast<size_t>(count));
    most = std::max(most, count);
  }
  out_boxes.shape = {batch, most, 4};
  // Zeroed (make_unique value-initializes): the rows past a sample's count stay zero.
  out_boxes.bytes =
      std::make_unique<uint8_t[]>(static_cast<size_t>(batch * most * 4) * sizeof(float));
  out_boxes.counts.resize(static_cast<size_t>(batch));
  for (size_t i = 0; i < static_cast<size_t>(batch); ++i) {
    out_boxes.counts[i] = static_cast<int64_t>(kept[i].size() / 4);
    if (kept[i].empty()) continue;  // no box (memcpy must not see its null data)
    std::memcpy(out_boxes.bytes.get() + i * static_cast<size_t>(most) * 4 * sizeof(float),
                kept[i].data(), kept[i].size() * sizeof(float));
  }
  for (size_t f = 0; f < per_box.size(); ++f) {
    const size_t value_bytes = BoxValueBytes(per_box[f]->spec);
    GeometricTensor& out = *out_per_box[f];
    out.shape = {batch, most};
    // Zeroed: a sample's values past its count are 0, as its boxes are.
    out.bytes = std::make_unique<uint8_t[]>(static_cast<size_t>(batch * most) * value_bytes);
    for (size_t i = 0; i < static_cast<size_t>(batch); ++i) {
      transform::CopyKeptValues(per_box[f]->column->row(indices[i]), value_bytes, kept_index[i],
                                out.bytes.get() + i * static_cast<size_t>(most) * value_bytes);
    }
  }
}

}  // namespace

GeometricFields MakeGeometricFields(const BatchFields& fields, const transform::OutputViews* views,
                                    const ImageShape& shape, std::span<const int64_t> indices,
                                    int64_t epoch, int copy, bool device) {
  std::vector<std::vector<GeometricTensor>> tensors(fields.fields.size());
  const ViewOf of{views, epoch, copy};
  if (!views && !fields.image_sizes.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "masks and boxes of a file of images at their own size follow a crop: give "
                "output.augment (Python: augment=) a crop, as the images of such a file need");
  }
  for (size_t k = 0; k < fields.fields.size(); ++k) {
    const BatchField& field = fields.fields[k];
    if (field.spec.kind == FieldKind::kMask && !(device && field.device_slot_field >= 0)) {
      for (int v = 0; v < of.count(); ++v) {
        tensors[k].push_back(Masks(field, of, v, shape, fields.image_sizes, indices));
      }
    }
    if (field.spec.kind != FieldKind::kBoxes) continue;
    // Its box labels and values, each given its tensor per view beside the boxes'.
    std::vector<size_t> of_boxes;
    for (size_t j = 0; j < fields.fields.size(); ++j) {
      const FieldSpec& spec = fields.fields[j].spec;
      if (IsPerBox(spec.kind) && spec.boxes == field.spec.name) of_boxes.push_back(j);
    }
    std::vector<const BatchField*> per_box;
    for (size_t j : of_boxes) {
      per_box.push_back(&fields.fields[j]);
      tensors[j].resize(static_cast<size_t>(of.count()));
    }
    tensors[k].resize(static_cast<size_t>(of.count()));
    for (int v = 0; v < of.count(); ++v) {
      const auto vv = static_cast<size_t>(v);
      std::vector<GeometricTensor*> out_per_box;
      for (size_t j : of_boxes) out_per_box.push_back(&tensors[j][vv]);
      Boxes(field, per_box, of, v, shape, fields.image_sizes, indices, tensors[k][vv], out_per_box);
    }
  }
  GeometricFields owned(tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    for (GeometricTensor& tensor : tensors[k]) {
      owned[k].push_back(std::make_shared<const GeometricTensor>(std::move(tensor)));
    }
  }
  return owned;
}

int64_t MaskBytesPerRow(const std::vector<FieldSpec>& asked, const transform::OutputViews* views,
                        const ImageShape& shape) {
  int64_t pixels = 0;  // of one mask in every view
  if (views) {
    for (int v = 0; v < views->count(); ++v) {
      const transform::OutputSpec& spec = views->views[static_cast<size_t>(v)];
      // The view's room is its largest image: that many pixels of image_bytes / its pixels each.
      const int64_t pixel_bytes =
          spec.image_bytes() / (int64_t{spec.augment.out_height} * spec.augment.out_width);
      pixels += views->room_bytes[static_cast<size_t>(v)] / pixel_bytes;
    }
  } else {
    pixels = shape.height * shape.width;
  }
  int64_t bytes = 0;
  for (const FieldSpec& spec : asked) {
    if (spec.kind == FieldKind::kMask) {
      bytes += pixels * static_cast<int64_t>(ElementBytes(spec.type));
    }
  }
  return bytes;
}

GeometricFields InOrder(const BatchFields& fields, const GeometricFields& made,
                        std::span<const int64_t> order) {
  GeometricFields ordered(made.size());
  for (size_t k = 0; k < made.size(); ++k) {
    const size_t element = ElementBytes(fields.fields[k].spec.type);
    for (const std::shared_ptr<const GeometricTensor>& tensor : made[k]) {
      GeometricTensor out;
      out.shape = tensor->shape;
      size_t sample_bytes = element;
      for (size_t d = 1; d < out.shape.size(); ++d) {
        sample_bytes *= static_cast<size_t>(out.shape[d]);
      }
      out.bytes = std::make_unique_for_overwrite<uint8_t[]>(order.size() * sample_bytes);
      for (size_t i = 0; i < order.size(); ++i) {
        const auto from = static_cast<size_t>(order[i]);
        // memcpy must not see the null data of a view where no sample kept a box.
        if (sample_bytes > 0) {
          std::memcpy(out.bytes.get() + i * sample_bytes, tensor->bytes.get() + from * sample_bytes,
                      sample_bytes);
        }
        if (!tensor->counts.empty()) out.counts.push_back(tensor->counts[from]);
      }
      ordered[k].push_back(std::make_shared<const GeometricTensor>(std::move(out)));
    }
  }
  return ordered;
}

}  // namespace h5feed::loader
