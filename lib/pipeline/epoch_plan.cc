#include "pipeline/epoch_plan.h"

#include <algorithm>
#include <string>

#include "h5feed/error.h"

namespace h5feed::pipeline {

EpochPlan::EpochPlan(int64_t epoch, std::vector<int64_t> order, int64_t batch_size,
                     bool drop_last_batch, int64_t chunk_samples, int64_t chunk_count,
                     std::span<const int64_t> next_rows)
    : epoch_(epoch), batch_size_(batch_size), order_(std::move(order)) {
  if (batch_size < 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "batch_size is " + std::to_string(batch_size) + "; it must be >= 1");
  }
  if (drop_last_batch) {
    order_.resize(order_.size() - order_.size() % static_cast<size_t>(batch_size));
  }
  access_ = std::make_shared<const cache::AccessPlan>(order_, batch_size, chunk_samples,
                                                      chunk_count, next_rows);
}

std::span<const int64_t> EpochPlan::rows_of(int64_t step) const {
  if (step < 0 || step >= steps()) return {};
  const size_t begin = static_cast<size_t>(step * batch_size_);
  const size_t end = std::min(order_.size(), begin + static_cast<size_t>(batch_size_));
  return std::span<const int64_t>(order_).subspan(begin, end - begin);
}

}  // namespace h5feed::pipeline
