#include "loader/epoch_orders.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace h5feed::loader {

EpochOrders::EpochOrders(const sampler::SampleGeometry& geometry, const SamplerOptions& sampler,
                         const ShardOptions& shard, uint64_t seed, int64_t batch_size)
    : geometry_(geometry), sampler_(sampler), shard_(shard), seed_(seed), batch_size_(batch_size) {}

std::vector<int64_t> EpochOrders::Compute(int64_t epoch) const {
  return sampler::EpochOrder(geometry_, sampler_, shard_, seed_, epoch);
}

std::span<const int64_t> EpochOrders::ComputeAhead(int64_t epoch) {
  upcoming_order_ = Compute(epoch);
  upcoming_epoch_ = epoch;
  return upcoming_order_;
}

std::vector<int64_t> EpochOrders::TakeAndLookAhead(int64_t epoch,
                                                   std::optional<std::vector<int64_t>> resumed) {
  std::vector<int64_t> order = resumed                    ? std::move(*resumed)
                               : upcoming_epoch_ == epoch ? std::move(upcoming_order_)
                                                          : Compute(epoch);
  upcoming_order_.clear();
  upcoming_epoch_.reset();
  if (epoch < std::numeric_limits<int64_t>::max()) ComputeAhead(epoch + 1);
  return order;
}

std::span<const int64_t> EpochOrders::upcoming_start() const {
  const int64_t window_rows =
      sampler::UsesWindow(sampler_) ? sampler_.window * geometry_.max_rows() : 0;
  // Two batches, saturated: a batch may be as large as int64 counts (the whole file at once).
  const int64_t two_batches = batch_size_ > std::numeric_limits<int64_t>::max() / 2
                                  ? std::numeric_limits<int64_t>::max()
                                  : 2 * batch_size_;
  const auto rows = static_cast<size_t>(std::max(window_rows, two_batches));
  return std::span<const int64_t>(upcoming_order_).first(std::min(rows, upcoming_order_.size()));
}

}  // namespace h5feed::loader
