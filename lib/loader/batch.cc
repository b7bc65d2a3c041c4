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

}  // namespace h5feed
