#include "cache/access_plan.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "sampler/epoch_steps.h"

namespace h5feed::cache {
namespace {

// The message is formatted only when the condition fails.
template <typename... Args>
void Require(bool condition, fmt::format_string<Args...> format, Args&&... args) {
  if (!condition) {
    throw MakeError(ErrorCode::kInvalidArgument, "AccessPlan: {}",
                    fmt::format(format, std::forward<Args>(args)...));
  }
}

}  // namespace

AccessPlan::AccessPlan(std::span<const int64_t> order, int64_t batch_size, const ChunkRows& chunks,
                       std::span<const int64_t> following) {
  Require(batch_size >= 1, "batch_size is {}; it must be >= 1", batch_size);
  const int64_t chunk_count = chunks.chunks();

  // Step -> distinct chunks. A chunk's rows meet in a step many times (a chunks:8 step of 256
  // rows touches 8 chunks), so each chunk is marked with the last step that listed it and
  // only the distinct ones are sorted: this runs on the thread that calls SetEpoch, which
  // sorting all of a step's rows held up noticeably (docs/reader.md, "Prefetching and window
  // switches"). `following` starts a step of its own: its rows are another epoch's, whose
  // steps begin at its first row.
  step_offsets_.push_back(0);
  std::vector<int64_t> listed_in(static_cast<size_t>(chunk_count), -1);  // chunk -> step
  const auto add_steps = [&](std::span<const int64_t> rows, const char* what) {
    const sampler::EpochSteps cut =
        sampler::CutIntoSteps(static_cast<int64_t>(rows.size()), batch_size);
    for (int64_t s = 0; s < cut.loaded; ++s) {
      const int64_t step = steps();
      const auto step_begin = static_cast<std::ptrdiff_t>(step_chunks_.size());
      for (int64_t i = cut.begin(s); i < cut.end(s); ++i) {
        const int64_t row = rows[static_cast<size_t>(i)];
        // The message is built only on failure: this runs for every row of every epoch.
        if (row < 0 || row >= chunks.samples()) {
          Require(
              false,
              "row {} at position {} of the {} lies outside the dataset of {} rows in {} chunks",
              row, i, what, chunks.samples(), chunk_count);
        }
        const int64_t chunk = chunks.chunk_of(row);
        int64_t& listed = listed_in[static_cast<size_t>(chunk)];
        if (listed != step) {
          listed = step;
          step_chunks_.push_back(chunk);
        }
      }
      std::sort(step_chunks_.begin() + step_begin, step_chunks_.end());
      step_offsets_.push_back(static_cast<int64_t>(step_chunks_.size()));
    }
  };
  add_steps(order, "order");
  epoch_steps_ = steps();
  add_steps(following, "following rows");
  const int64_t steps = this->steps();

  // Chunk -> steps, by counting sort: visiting steps in ascending order fills each chunk's
  // list already sorted.
  chunk_offsets_.assign(static_cast<size_t>(chunk_count) + 1, 0);
  for (int64_t c : step_chunks_) ++chunk_offsets_[static_cast<size_t>(c) + 1];
  for (size_t c = 0; c < static_cast<size_t>(chunk_count); ++c) {
    chunk_offsets_[c + 1] += chunk_offsets_[c];
  }
  chunk_steps_.resize(step_chunks_.size());
  std::vector<int64_t> fill(chunk_offsets_.begin(), chunk_offsets_.end() - 1);
  for (int64_t s = 0; s < steps; ++s) {
    for (int64_t c : chunks_of(s)) {
      chunk_steps_[static_cast<size_t>(fill[static_cast<size_t>(c)]++)] = s;
    }
  }
}

int64_t AccessPlan::steps() const { return static_cast<int64_t>(step_offsets_.size()) - 1; }

int64_t AccessPlan::chunk_count() const { return static_cast<int64_t>(chunk_offsets_.size()) - 1; }

int64_t AccessPlan::touches() const { return static_cast<int64_t>(step_chunks_.size()); }

std::span<const int64_t> AccessPlan::chunks_of(int64_t step) const {
  if (step < 0 || step >= steps()) return {};
  const auto s = static_cast<size_t>(step);
  return std::span<const int64_t>(step_chunks_)
      .subspan(static_cast<size_t>(step_offsets_[s]),
               static_cast<size_t>(step_offsets_[s + 1] - step_offsets_[s]));
}

int64_t AccessPlan::NextUse(int64_t chunk, int64_t step) const {
  if (chunk < 0 || chunk >= chunk_count()) return kNever;
  const auto c = static_cast<size_t>(chunk);
  const auto first = chunk_steps_.begin() + chunk_offsets_[c];
  const auto last = chunk_steps_.begin() + chunk_offsets_[c + 1];
  const auto it = std::lower_bound(first, last, step);
  return it == last ? kNever : *it;
}

}  // namespace h5feed::cache
