#include "pipeline/echo.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "sampler/permutation.h"
#include "transform/random_streams.h"

namespace h5feed::pipeline {
uint64_t EchoSeed(uint64_t seed, int64_t epoch, int64_t step, int copy) {
  return transform::StreamKey(seed, epoch, transform::RandomStream::kEcho, step, copy);
}

std::vector<int64_t> EchoPermutation(int64_t rows, uint64_t seed, int64_t epoch, int64_t step,
                                     int copy) {
  if (copy == 0) {
    std::vector<int64_t> identity(static_cast<size_t>(rows));
    std::iota(identity.begin(), identity.end(), int64_t{0});
    return identity;
  }
  return sampler::Permutation(rows, EchoSeed(seed, epoch, step, copy));
}

void CopyPermuted(const memory::SlotLayout& layout, const memory::SlotView& from,
                  const memory::SlotView& to, std::span<const int64_t> permutation,
                  bool with_output) {
  const size_t image_bytes = static_cast<size_t>(layout.shape().bytes());
  const size_t output_bytes = with_output ? layout.output_image_bytes() : 0;
  const size_t row_bytes = image_bytes + output_bytes;
  // About 1 MiB of rows per task: memcpy-bound work, so coarse grains (fewer tasks) are best.
  const size_t grain = std::max<size_t>(1, (size_t{1} << 20) / row_bytes);
  const auto rows = static_cast<int64_t>(permutation.size());
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, grain),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t i = range.begin(); i < range.end(); ++i) {
                        const auto dst = static_cast<size_t>(i);
                        const auto src = static_cast<size_t>(permutation[dst]);
                        std::memcpy(to.images.data() + dst * image_bytes,
                                    from.images.data() + src * image_bytes, image_bytes);
                        if (output_bytes > 0) {
                          std::memcpy(to.output.data() + dst * output_bytes,
                                      from.output.data() + src * output_bytes, output_bytes);
                        }
                        to.labels[dst] = from.labels[src];
                        to.indices[dst] = from.indices[src];
                        for (int k = 0; k < layout.fields(); ++k) {
                          const size_t bytes = layout.field_row_bytes(k);
                          const auto field = static_cast<size_t>(k);
                          std::memcpy(to.fields[field].data() + dst * bytes,
                                      from.fields[field].data() + src * bytes, bytes);
                        }
                      }
                    });
}

}  // namespace h5feed::pipeline
