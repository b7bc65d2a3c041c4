// LabelMixingMeter (sampler/label_mixing.h).

#include "sampler/label_mixing.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

// The seed of the reference shuffle: fixed, so the figure is reproducible run to run.
constexpr uint64_t kReferenceSeed = 0x1abe15eed1abe15eULL;

// Labels spanning at most this many values beyond twice the row count are used as ids
// directly (label - min): one pass, no sort. Wider ones (arbitrary ids in a foreign file) are
// sorted and ranked.
constexpr int64_t kDirectSlack = int64_t{1} << 16;

// The batch length and the number of batches MeasureOrder takes from an order of `rows`.
struct Batches {
  size_t length = 0;
  size_t count = 0;
  size_t rows() const { return length * count; }
};

Batches BatchesToMeasure(size_t rows, int64_t batch_size, int64_t most_rows = kMeasuredRows) {
  Batches batches;
  batches.length = std::min(static_cast<size_t>(batch_size), rows);  // one short batch: all
  const size_t most = std::max<size_t>(1, static_cast<size_t>(most_rows) / batches.length);
  batches.count = std::min(rows / batches.length, most);
  return batches;
}

}  // namespace

LabelMixingMeter::LabelMixingMeter(std::span<const int64_t> labels) {
  if (labels.size() > static_cast<size_t>(kMaxRows)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "label mixing: {} labels; at most {} can be measured", labels.size(), kMaxRows);
  }
  ids_.resize(labels.size());
  if (labels.empty()) return;
  const auto [low, high] = std::minmax_element(labels.begin(), labels.end());
  const auto rows = static_cast<int64_t>(labels.size());
  // high - low as unsigned: labels at both ends of int64 would overflow a signed difference.
  const uint64_t span = static_cast<uint64_t>(*high) - static_cast<uint64_t>(*low);
  if (span < static_cast<uint64_t>(std::min(2 * rows + kDirectSlack, kMaxRows))) {
    id_count_ = static_cast<int64_t>(span) + 1;
    std::vector<bool> seen(static_cast<size_t>(id_count_));
    for (size_t r = 0; r < labels.size(); ++r) {
      const auto id =
          static_cast<int32_t>(static_cast<uint64_t>(labels[r]) - static_cast<uint64_t>(*low));
      ids_[r] = id;
      if (!seen[static_cast<size_t>(id)]) {
        seen[static_cast<size_t>(id)] = true;
        ++classes_;
      }
    }
    return;
  }
  std::vector<int64_t> values(labels.begin(), labels.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (size_t r = 0; r < labels.size(); ++r) {
    ids_[r] = static_cast<int32_t>(std::lower_bound(values.begin(), values.end(), labels[r]) -
                                   values.begin());
  }
  id_count_ = classes_ = static_cast<int64_t>(values.size());
}

BatchMixing LabelMixingMeter::MeasureOrder(std::span<const int64_t> order,
                                           int64_t batch_size) const {
  if (batch_size < 1 || order.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "label mixing: an order of {} rows in batches of {}; both must be at least 1",
                    order.size(), batch_size);
  }
  const Batches batches = BatchesToMeasure(order.size(), batch_size);
  return MeasureIds(IdsOf(order.first(batches.rows())), batches.length);
}

LabelMixing LabelMixingMeter::Measure(std::span<const int64_t> order, int64_t batch_size) const {
  LabelMixing mixing;
  mixing.order = MeasureOrder(order, batch_size);  // checks the arguments first
  const Batches batches = BatchesToMeasure(order.size(), batch_size);
  mixing.batches = static_cast<int64_t>(batches.count);
  // The reference: the first rows of a shuffle of all the order's rows (Fisher-Yates from the
  // front, stopped when they are drawn). Its random writes are most of the measure's time
  // (a cache miss each on 1.28M rows), hence kReferenceRows.
  const Batches reference = BatchesToMeasure(order.size(), batch_size, kReferenceRows);
  mixing.random_batches = static_cast<int64_t>(reference.count);
  std::vector<int64_t> shuffled(order.begin(), order.end());
  SplitMix64 rng(kReferenceSeed);
  for (size_t i = 0; i < reference.rows() && i + 1 < shuffled.size(); ++i) {
    std::swap(shuffled[i], shuffled[i + rng.Below(shuffled.size() - i)]);
  }
  mixing.random = MeasureIds(IdsOf(std::span<const int64_t>(shuffled).first(reference.rows())),
                             reference.length);
  std::vector<bool> seen(static_cast<size_t>(id_count_));
  for (int64_t row : order.first(batches.rows())) {  // rows in range: IdsOf checked them
    const auto id = static_cast<size_t>(ids_[static_cast<size_t>(row)]);
    mixing.classes += seen[id] ? 0 : 1;
    seen[id] = true;
  }
  // Below a thousandth of a bit the random order's batches are one class each.
  mixing.entropy_ratio = mixing.random.entropy_bits > 1e-3
                             ? mixing.order.entropy_bits / mixing.random.entropy_bits
                             : 1.0;
  return mixing;
}

std::vector<int32_t> LabelMixingMeter::IdsOf(std::span<const int64_t> order) const {
  std::vector<int32_t> ids(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t row = order[i];
    if (row < 0 || row >= rows()) {
      throw MakeError(
          ErrorCode::kInvalidArgument,
          "label mixing: the order holds row {} at position {}; the labels cover rows 0 to {}", row,
          i, rows() - 1);
    }
    ids[i] = ids_[static_cast<size_t>(row)];
  }
  return ids;
}

BatchMixing LabelMixingMeter::MeasureIds(std::span<const int32_t> ids, size_t batch) const {
  const size_t count = ids.size() / batch;
  // n log2 n for the count n of one label in a batch: the entropy of a batch of b rows is
  // log2 b - (1 / b) sum n log2 n.
  std::vector<double> n_log_n(batch + 1, 0.0);
  for (size_t n = 2; n <= batch; ++n) {
    n_log_n[n] = static_cast<double>(n) * std::log2(static_cast<double>(n));
  }
  std::vector<uint32_t> counts(static_cast<size_t>(id_count_), 0);
  std::vector<int32_t> present;
  present.reserve(batch);
  double classes = 0, bits = 0, squares = 0;
  for (size_t b = 0; b < count; ++b) {
    present.clear();
    for (int32_t id : ids.subspan(b * batch, batch)) {
      if (counts[static_cast<size_t>(id)]++ == 0) present.push_back(id);
    }
    double sum = 0;
    for (int32_t id : present) {
      sum += n_log_n[counts[static_cast<size_t>(id)]];
      counts[static_cast<size_t>(id)] = 0;
    }
    // A batch of one label computes log2 b - log2 b, which may round to a tiny negative.
    const double entropy =
        std::max(0.0, std::log2(static_cast<double>(batch)) - sum / static_cast<double>(batch));
    classes += static_cast<double>(present.size());
    bits += entropy;
    squares += entropy * entropy;
  }
  const auto batches = static_cast<double>(count);
  const double mean = bits / batches;
  const double variance = count > 1 ? (squares - batches * mean * mean) / (batches - 1) : 0;
  return BatchMixing{classes / batches, mean, std::sqrt(std::max(0.0, variance))};
}

std::optional<int64_t> LabelMixingMeter::WindowThatMixes(const SampleGeometry& geometry,
                                                         const SamplerOptions& sampler,
                                                         uint64_t seed, int64_t batch_size,
                                                         const BatchMixing& random) const {
  const int64_t chunks = geometry.chunks();
  for (int64_t window = sampler.window; window < chunks;) {
    window = std::min(2 * window, chunks);
    // Rank 0 of `world` ranks reads a block of the epoch's shuffled chunk order and shuffles
    // it in windows of W chunks, as the whole epoch is: the same batches, statistically, as
    // long as the block holds a whole window (within one, any rows are a uniform sample).
    const auto window_rows = static_cast<int64_t>(double(window) * geometry.mean_rows());
    const int64_t share = std::max(kMeasuredRows, window_rows);
    const auto world = static_cast<int>(std::max<int64_t>(1, geometry.samples() / share));
    const std::vector<int64_t> order = EpochOrder(geometry, SamplerOptions{sampler.kind, window},
                                                  ShardOptions{0, world, false}, seed, 0);
    if (MeasureOrder(order, batch_size).entropy_bits >= kMinEntropyRatio * random.entropy_bits) {
      return window;
    }
  }
  return std::nullopt;
}

bool MixesTooFewClasses(const LabelMixing& mixing) {
  if (mixing.batches < 4 || mixing.random_batches < 4 || mixing.entropy_ratio >= kMinEntropyRatio) {
    return false;
  }
  const auto square = [](double x) { return x * x; };
  const double standard_error =
      std::sqrt(square(mixing.order.entropy_sd_bits) / static_cast<double>(mixing.batches) +
                square(mixing.random.entropy_sd_bits) / static_cast<double>(mixing.random_batches));
  return mixing.random.entropy_bits - mixing.order.entropy_bits > kStandardErrors * standard_error;
}

}  // namespace h5feed::sampler
