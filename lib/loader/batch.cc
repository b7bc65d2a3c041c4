#include <algorithm>
#include <string>
#include <utility>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "loader/batch_impl.h"
#include "loader/device_feed.h"
#include "make_error.h"

namespace h5feed {

int64_t FieldTensor::elements() const {
  int64_t count = 1;
  for (const int64_t dim : shape) count *= dim;
  return count;
}

const loader::BatchField& Batch::Impl::field(int k) const {
  if (k < 0 || k >= static_cast<int>(fields->fields.size())) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "batch field {}: the batch has {} field(s), numbered from 0 in the order the "
                    "loader was asked for them ({})",
                    k, fields->fields.size(), fields->Names());
  }
  return fields->fields[static_cast<size_t>(k)];
}

Batch::Batch(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const Batch::Impl& Batch::live() const {
  // A moved-from Batch holds nothing: say so instead of following a null pointer.
  if (!impl_) {
    throw Error(ErrorCode::kInvalidArgument,
                "h5feed::Batch: this Batch was moved from; its images, labels and fields belong "
                "to the Batch it was moved to: use that one");
  }
  return *impl_;
}

int64_t Batch::size() const { return live().batch.rows; }
const ImageShape& Batch::image_shape() const { return live().shape; }
bool Batch::normalized() const { return live().normalized; }
int64_t Batch::epoch() const { return live().batch.epoch; }
int64_t Batch::step() const { return live().batch.step; }

std::span<const uint8_t> Batch::images() const {
  const Impl& impl = live();
  if (impl.device) return {};  // only the normalized images reach the device
  return impl.batch.view.images.first(static_cast<size_t>(size() * impl.shape.bytes()));
}

std::span<const float> Batch::normalized_images(int view) const {
  const Impl& impl = live();
  if (!impl.normalized || impl.device || view < 0 || view >= views() ||
      impl.views->views[static_cast<size_t>(view)].type != ElementType::kFloat32) {
    return {};
  }
  const auto bytes =
      static_cast<size_t>(size() * impl.views->views[static_cast<size_t>(view)].image_bytes());
  const std::span<const uint8_t> output =
      impl.batch.view.output.subspan(impl.views->offset(view, impl.capacity), bytes);
  return {reinterpret_cast<const float*>(output.data()), bytes / sizeof(float)};
}

int Batch::views() const {
  const Impl& impl = live();
  return impl.views ? impl.views->count() : 1;
}

std::span<const int64_t> Batch::labels() const {
  const Impl& impl = live();
  if (!impl.labelled) return {};
  return impl.batch.view.labels.first(static_cast<size_t>(size()));
}

std::span<const int64_t> Batch::indices() const {
  return live().batch.view.indices.first(static_cast<size_t>(size()));
}

namespace {

TensorView Vector(const void* data, ElementType type, int64_t size, int cuda_device) {
  TensorView view;
  view.data = data;
  view.type = type;
  view.rank = 1;
  view.shape[0] = size;
  view.strides[0] = 1;
  view.cuda_device = cuda_device;
  return view;
}

TensorView Images(const void* data, ElementType type, std::array<int64_t, 4> shape,
                  int cuda_device) {
  TensorView view;
  view.data = data;
  view.type = type;
  view.rank = 4;
  view.shape = shape;
  view.strides = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
  view.cuda_device = cuda_device;
  return view;
}

}  // namespace

TensorView Batch::image_tensor(int view) const {
  const Impl& impl = live();
  const ImageShape& shape = impl.shape;
  if (view < 0 || view >= views()) return TensorView{};
  if (!impl.normalized) {
    return Images(images().data(), ElementType::kUint8,
                  {size(), shape.height, shape.width, shape.channels}, -1);
  }
  const transform::OutputSpec& spec = impl.views->views[static_cast<size_t>(view)];
  const int64_t height = spec.augment.out_height;
  const int64_t width = spec.augment.out_width;
  const auto* base = static_cast<const uint8_t*>(impl.device ? impl.device->images()
                                                             : impl.batch.view.output.data());
  const void* data = base + impl.views->offset(view, impl.capacity);
  const std::array<int64_t, 4> dims =
      spec.layout == Layout::kNCHW ? std::array<int64_t, 4>{size(), shape.channels, height, width}
                                   : std::array<int64_t, 4>{size(), height, width, shape.channels};
  return Images(data, spec.type, dims, impl.cuda_device);
}

TensorView Batch::label_tensor() const {
  const Impl& impl = live();
  if (!impl.labelled) return TensorView{};
  if (impl.device) {
    return Vector(impl.device->labels(), ElementType::kInt64, size(), impl.cuda_device);
  }
  return Vector(labels().data(), ElementType::kInt64, size(), -1);
}

TensorView Batch::index_tensor() const {
  return Vector(indices().data(), ElementType::kInt64, size(), -1);
}

int Batch::fields() const { return static_cast<int>(live().fields->fields.size()); }

const FieldSpec& Batch::field_spec(int k) const { return live().field(k).spec; }

int Batch::field_index(std::string_view name) const {
  const Impl& impl = live();
  const int k = impl.fields->Find(name);
  if (k < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "field {} is not among the fields this loader was asked for ({}); ask for it "
                    "in LoaderOptions::fields",
                    name, impl.fields->Names());
  }
  return k;
}

namespace {

const std::shared_ptr<const loader::GeometricTensor>& GeometricOf(const Batch::Impl& impl, int k,
                                                                  int view) {
  const loader::BatchField& field = impl.field(k);
  const size_t views = impl.geometric.empty() ? 0 : impl.geometric[static_cast<size_t>(k)].size();
  if (view < 0 || view >= static_cast<int>(views)) {
    throw MakeError(ErrorCode::kInvalidArgument, "field {} ({}): view {} of a batch of {} view(s)",
                    field.spec.name, field.spec.Describe(), view, views);
  }
  return impl.geometric[static_cast<size_t>(k)][static_cast<size_t>(view)];
}

}  // namespace

FieldTensor Batch::field_tensor(int k, int view) const {
  const Impl& impl = live();
  const loader::BatchField& field = impl.field(k);
  if (impl.device && field.device_slot_field >= 0) {
    // A mask the GPU stage cropped: view `view`'s tensor on the device.
    if (view < 0 || view >= views()) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "field {} ({}): view {} of a batch of {} view(s)", field.spec.name,
                      field.spec.Describe(), view, views());
    }
    const transform::AugmentParams& augment = impl.views->views[static_cast<size_t>(view)].augment;
    return FieldTensor{impl.device->field(field.device_slot_field, view),
                       field.spec.type,
                       {size(), augment.out_height, augment.out_width},
                       impl.cuda_device};
  }
  if (IsGeometric(field.spec.kind)) {
    const loader::GeometricTensor& geometric = *GeometricOf(impl, k, view);
    return FieldTensor{geometric.bytes.get(), field.spec.type, geometric.shape, -1};
  }
  if (field.slot_field < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "field {} is {}, whose rows have their own lengths: read them with "
                    "field_bytes or field_text",
                    field.spec.name, ToString(field.spec.kind));
  }
  FieldTensor tensor;
  if (impl.device) {
    // Permuted on the device with the images (also on the host: field_bytes reads those).
    tensor.data = impl.device->field(field.slot_field, 0);
    tensor.cuda_device = impl.cuda_device;
  } else {
    tensor.data = impl.batch.view.fields[static_cast<size_t>(field.slot_field)].data();
  }
  tensor.type = field.spec.type;
  tensor.shape.push_back(size());
  tensor.shape.insert(tensor.shape.end(), field.spec.shape.begin(), field.spec.shape.end());
  return tensor;
}

FieldTensor Batch::field_tensor(std::string_view name, int view) const {
  return field_tensor(field_index(name), view);
}

FieldTensor Batch::box_counts(int k, int view) const {
  const Impl& impl = live();
  const loader::BatchField& field = impl.field(k);
  if (field.spec.kind != FieldKind::kBoxes) {
    throw MakeError(ErrorCode::kInvalidArgument, "field {} is {}, not boxes: it has no counts",
                    field.spec.name, field.spec.Describe());
  }
  const loader::GeometricTensor& geometric = *GeometricOf(impl, k, view);
  return FieldTensor{geometric.counts.data(), FieldType::kInt64, {size()}, -1};
}

std::shared_ptr<const void> Batch::field_owner(int k, int view) const {
  const Impl& impl = live();
  const loader::BatchField& field = impl.field(k);
  // A mask the GPU stage cropped is the device batch's buffer, as the images are.
  if (!IsGeometric(field.spec.kind) || (impl.device && field.device_slot_field >= 0)) {
    return nullptr;
  }
  return GeometricOf(impl, k, view);
}

std::span<const uint8_t> Batch::field_bytes(int k, int64_t i) const {
  const Impl& impl = live();
  const loader::BatchField& field = impl.field(k);
  if (i < 0 || i >= size()) {
    throw MakeError(ErrorCode::kInvalidArgument, "field {}: row {} of a batch of {}",
                    field.spec.name, i, size());
  }
  if (field.slot_field < 0) return field.column->row(indices()[static_cast<size_t>(i)]);
  const auto row_bytes = static_cast<size_t>(field.spec.row_bytes());
  return std::span<const uint8_t>(impl.batch.view.fields[static_cast<size_t>(field.slot_field)])
      .subspan(static_cast<size_t>(i) * row_bytes, row_bytes);
}

std::string_view Batch::field_text(int k, int64_t i) const {
  const std::span<const uint8_t> bytes = field_bytes(k, i);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

namespace loader {
namespace {

bool AsksGeometric(const BatchFields& fields) {
  return std::any_of(fields.fields.begin(), fields.fields.end(),
                     [](const BatchField& f) { return IsGeometric(f.spec.kind); });
}

std::shared_ptr<Batch::Impl> ImplOfForm(const BatchForm& form) {
  auto impl = std::make_shared<Batch::Impl>();
  impl->shape = form.shape;
  impl->normalized = form.normalized;
  impl->labelled = form.labelled;
  impl->fields = form.fields;
  impl->views = form.views;
  impl->capacity = form.capacity;
  return impl;
}

}  // namespace

std::function<std::shared_ptr<const void>(std::span<const int64_t>, int64_t, int)>
GeometricFieldsMaker(const BatchForm& form, int device_echo) {
  if (!AsksGeometric(*form.fields)) return {};
  // The run's fields and views, shared: the assembler may outlive the loader's form of a run.
  if (device_echo > 0) {
    return [fields = form.fields, views = form.views, shape = form.shape, device_echo](
               std::span<const int64_t> indices, int64_t epoch, int) {
      auto made = std::make_shared<EchoGeometricFields>();
      made->fields = fields;
      for (int copy = 0; copy < device_echo; ++copy) {
        made->copies.push_back(
            MakeGeometricFields(*fields, views.get(), shape, indices, epoch, copy, true));
      }
      return std::shared_ptr<const void>(std::move(made));
    };
  }
  return [fields = form.fields, views = form.views, shape = form.shape](
             std::span<const int64_t> indices, int64_t epoch, int copy) {
    return std::shared_ptr<const void>(std::make_shared<const GeometricFields>(
        MakeGeometricFields(*fields, views.get(), shape, indices, epoch, copy)));
  };
}

std::shared_ptr<Batch::Impl> MakeBatchImpl(pipeline::AssembledBatch batch, const BatchForm& form) {
  std::shared_ptr<Batch::Impl> impl = ImplOfForm(form);
  impl->batch = std::move(batch);
  if (impl->batch.extras) {
    // Made by GeometricFieldsMaker(form), the one maker of a host run's extras.
    impl->geometric = *std::static_pointer_cast<const GeometricFields>(impl->batch.extras);
  } else if (AsksGeometric(*form.fields)) {
    throw Error(ErrorCode::kInternal, "a host batch with masks or boxes asked came without them");
  }
  return impl;
}

std::shared_ptr<Batch::Impl> MakeBatchImpl(DeviceDelivery delivery, const BatchForm& form) {
  std::shared_ptr<Batch::Impl> impl = ImplOfForm(form);
  impl->device = std::move(delivery.device);
  impl->cuda_device = form.cuda_device;
  impl->host_rows = std::move(delivery.host_rows);
  impl->host_fields = std::move(delivery.host_fields);
  impl->batch.rows = static_cast<int64_t>(delivery.labels.size());
  impl->batch.epoch = delivery.epoch;
  impl->batch.step = delivery.step;
  impl->batch.view.labels = delivery.labels;
  impl->batch.view.indices = delivery.indices;
  impl->batch.view.fields = std::move(delivery.fields);
  impl->batch.copy = delivery.copy;
  // Boxes and box labels on the host, as the CPU path makes them (masks are on the device): made
  // by GeometricFieldsMaker(form, echo) in the assembler, put in this copy's order by the feed.
  impl->geometric = std::move(delivery.geometric);
  if (impl->geometric.empty() && AsksGeometric(*form.fields)) {
    throw Error(ErrorCode::kInternal, "a GPU batch with masks or boxes asked came without them");
  }
  return impl;
}

}  // namespace loader
}  // namespace h5feed
