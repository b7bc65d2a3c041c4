#include "pipeline/epoch_plan.h"

#include <utility>

namespace h5feed::pipeline {

EpochPlan::EpochPlan(int64_t epoch, std::vector<int64_t> order, int64_t batch_size,
                     bool drop_last_batch, const ChunkRows& chunks,
                     std::span<const int64_t> next_rows)
    : epoch_(epoch),
      steps_(
          sampler::CutIntoSteps(static_cast<int64_t>(order.size()), batch_size, drop_last_batch)),
      order_(std::move(order)) {
  order_.resize(static_cast<size_t>(steps_.rows));
  access_ = std::make_shared<const cache::AccessPlan>(order_, batch_size, chunks, next_rows);
}

std::span<const int64_t> EpochPlan::rows_of(int64_t step) const {
  if (step < 0 || step >= steps()) return {};
  const auto begin = static_cast<size_t>(steps_.begin(step));
  const auto end = static_cast<size_t>(steps_.end(step));
  return std::span<const int64_t>(order_).subspan(begin, end - begin);
}

}  // namespace h5feed::pipeline
