#include <utility>

#include "h5feed/loader.h"
#include "loader/batch_impl.h"

namespace h5feed {

Batch::Batch(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

int64_t Batch::size() const { return impl_->batch.rows; }
const ImageShape& Batch::image_shape() const { return impl_->shape; }
bool Batch::normalized() const { return impl_->normalized; }
int64_t Batch::epoch() const { return impl_->batch.epoch; }
int64_t Batch::step() const { return impl_->batch.step; }

std::span<const uint8_t> Batch::images() const {
  return impl_->batch.view.images.first(static_cast<size_t>(size() * impl_->shape.bytes()));
}

std::span<const float> Batch::normalized_images() const {
  if (!impl_->normalized) return {};
  return impl_->batch.view.normalized.first(static_cast<size_t>(size() * impl_->shape.bytes()));
}

std::span<const int64_t> Batch::labels() const {
  return impl_->batch.view.labels.first(static_cast<size_t>(size()));
}

std::span<const int64_t> Batch::indices() const {
  return impl_->batch.view.indices.first(static_cast<size_t>(size()));
}

namespace {

TensorView Vector(const void* data, ElementType type, int64_t size) {
  TensorView view;
  view.data = data;
  view.type = type;
  view.rank = 1;
  view.shape[0] = size;
  view.strides[0] = 1;
  return view;
}

TensorView Images(const void* data, ElementType type, std::array<int64_t, 4> shape) {
  TensorView view;
  view.data = data;
  view.type = type;
  view.rank = 4;
  view.shape = shape;
  view.strides = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
  return view;
}

}  // namespace

TensorView Batch::image_tensor() const {
  const ImageShape& shape = impl_->shape;
  if (!impl_->normalized) {
    return Images(images().data(), ElementType::kUint8,
                  {size(), shape.height, shape.width, shape.channels});
  }
  return Images(normalized_images().data(), ElementType::kFloat32,
                {size(), shape.channels, shape.height, shape.width});
}

TensorView Batch::label_tensor() const {
  return Vector(labels().data(), ElementType::kInt64, size());
}

TensorView Batch::index_tensor() const {
  return Vector(indices().data(), ElementType::kInt64, size());
}

}  // namespace h5feed
