// MeasureShuffleQuality (sampler/shuffle_quality.h).

#include "sampler/shuffle_quality.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

// The seed of the reference shuffle behind delta_entropy_ratio: fixed, so the figure is
// reproducible run to run.
constexpr uint64_t kShuffleQualitySeed = 0x5eed5eed5eed5eedULL;

// Entropy in bits of the distribution of |order[i + 1] - order[i]|.
double DeltaEntropyBits(std::span<const int64_t> order) {
  if (order.size() < 2) return 0;
  std::vector<int64_t> deltas(order.size() - 1);
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    deltas[i] = order[i + 1] > order[i] ? order[i + 1] - order[i] : order[i] - order[i + 1];
  }
  std::sort(deltas.begin(), deltas.end());
  const double total = static_cast<double>(deltas.size());
  double bits = 0;
  for (size_t first = 0; first < deltas.size();) {
    size_t last = first;
    while (last < deltas.size() && deltas[last] == deltas[first]) ++last;
    const double p = static_cast<double>(last - first) / total;
    bits -= p * std::log2(p);
    first = last;
  }
  return bits;
}

double ChunksPerBatch(std::span<const int64_t> order, const ChunkRows& chunk_rows,
                      int64_t batch_size) {
  if (order.empty()) return 0;
  const size_t step = static_cast<size_t>(batch_size);
  std::vector<int64_t> chunks;
  int64_t distinct = 0;
  int64_t batches = 0;
  for (size_t first = 0, last = 0; first < order.size(); first = last) {
    last = first + std::min(step, order.size() - first);
    chunks.clear();
    for (size_t i = first; i < last; ++i) chunks.push_back(chunk_rows.chunk_of(order[i]));
    std::sort(chunks.begin(), chunks.end());
    distinct += std::unique(chunks.begin(), chunks.end()) - chunks.begin();
    ++batches;
  }
  return static_cast<double>(distinct) / static_cast<double>(batches);
}

}  // namespace

ShuffleQuality MeasureShuffleQuality(std::span<const int64_t> order, const ChunkRows& chunks,
                                     int64_t batch_size) {
  if (batch_size < 1) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "shuffle quality: batch_size {} must be at least 1", batch_size);
  }
  const auto outside = [&](int64_t r) { return r < 0 || r >= chunks.samples(); };
  if (auto bad = std::find_if(order.begin(), order.end(), outside); bad != order.end()) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "shuffle quality: the order holds row {} at position {}; rows are dataset indices in 0..{}",
        *bad, bad - order.begin(), chunks.samples() - 1);
  }

  ShuffleQuality quality;
  quality.delta_entropy_bits = DeltaEntropyBits(order);
  quality.chunks_per_batch = ChunksPerBatch(order, chunks, batch_size);

  std::vector<int64_t> reference(order.begin(), order.end());
  SplitMix64 rng(kShuffleQualitySeed);
  Shuffle(std::span<int64_t>(reference), rng);
  const double reference_bits = DeltaEntropyBits(reference);
  quality.delta_entropy_ratio =
      reference_bits > 0 ? quality.delta_entropy_bits / reference_bits : 1.0;
  return quality;
}

}  // namespace h5feed::sampler
