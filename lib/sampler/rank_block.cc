// LocalOrder and LocalOrderSlice (sampler/rank_block.h).

#include "sampler/rank_block.h"

#include <algorithm>
#include <numeric>

#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

using Kind = SamplerOptions::Kind;

// chunks:W: the runs W at a time, each group's rows shuffled together. Every row of a run stays
// within its group's span of at most W chunks' rows, so a cache of W chunks reads each once.
void ShuffleWindows(RankBlock& block, int64_t window, SplitMix64& rng) {
  const size_t step = static_cast<size_t>(window);
  for (size_t first = 0, last = 0; first < block.runs(); first = last) {
    last = first + std::min(step, block.runs() - first);
    std::span<int64_t> rows(block.entries.data() + block.run_starts[first],
                            block.run_starts[last] - block.run_starts[first]);
    Shuffle(rows, rng);
  }
}

// quasi:W's draws, as FFCV's QuasiRandomSampler: an active set of at most W runs taken in run
// order; each draw takes the next entry of a uniformly chosen active run, and a run that runs
// out is replaced in place by the next run not yet opened. Only counts entries: QuasiOrder
// lists them, LocalOrderSlice needs only how many each run has given.
class QuasiDraws {
 public:
  QuasiDraws(std::vector<int64_t> run_lengths, int64_t window)
      : lengths_(std::move(run_lengths)), taken_(lengths_.size(), 0) {
    while (next_run_ < lengths_.size() && active_.size() < static_cast<size_t>(window)) {
      active_.push_back(next_run_++);
    }
  }

  bool done() const { return active_.empty(); }
  const std::vector<int64_t>& taken() const { return taken_; }

  // Draws once (not done()); returns the run it took an entry from.
  size_t Draw(SplitMix64& rng) {
    const size_t pick = static_cast<size_t>(rng.Below(active_.size()));
    const size_t run = active_[pick];
    if (++taken_[run] == lengths_[run]) {
      if (next_run_ < lengths_.size()) {
        active_[pick] = next_run_++;
      } else {
        active_[pick] = active_.back();
        active_.pop_back();
      }
    }
    return run;
  }

 private:
  std::vector<int64_t> lengths_;
  std::vector<int64_t> taken_;  // entries each run has given
  std::vector<size_t> active_;
  size_t next_run_ = 0;
};

// quasi:W: each run's rows shuffled, then drawn by QuasiDraws.
std::vector<int64_t> QuasiOrder(RankBlock& block, int64_t window, SplitMix64& rng) {
  std::vector<int64_t> lengths(block.runs());
  for (size_t run = 0; run < block.runs(); ++run) {
    lengths[run] = static_cast<int64_t>(block.run_starts[run + 1] - block.run_starts[run]);
    Shuffle(std::span<int64_t>(block.entries.data() + block.run_starts[run],
                               static_cast<size_t>(lengths[run])),
            rng);
  }
  QuasiDraws draws(std::move(lengths), window);
  std::vector<int64_t> order;
  order.reserve(block.entries.size());
  while (!draws.done()) {
    const size_t run = draws.Draw(rng);
    order.push_back(
        block.entries[block.run_starts[run] + static_cast<size_t>(draws.taken()[run]) - 1]);
  }
  return order;
}

// The draws Shuffle makes on `count` values, without the values: a shuffle whose result is
// not needed still moves the generator on by exactly these.
void SkipShuffle(int64_t count, SplitMix64& rng) {
  for (auto i = static_cast<size_t>(count); i > 1; --i) rng.Below(i);
}

void AppendSpan(std::vector<OffsetSpan>& spans, int64_t begin, int64_t end) {
  if (begin == end) return;
  if (!spans.empty() && spans.back().end == begin) {
    spans.back().end = end;
  } else {
    spans.push_back(OffsetSpan{begin, end});
  }
}

// Offsets first .. first + count - 1 shuffled by `rng`: appends those at [from, to) of the
// shuffle, in offset order.
void AppendShuffledSlice(int64_t first, int64_t count, int64_t from, int64_t to, SplitMix64& rng,
                         std::vector<OffsetSpan>& spans) {
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::iota(offsets.begin(), offsets.end(), first);
  Shuffle(std::span<int64_t>(offsets), rng);
  std::sort(offsets.begin() + from, offsets.begin() + to);
  for (int64_t i = from; i < to; ++i) {
    const int64_t offset = offsets[static_cast<size_t>(i)];
    AppendSpan(spans, offset, offset + 1);
  }
}

// LocalOrderSlice for chunks:W (ShuffleWindows' draws, window by window).
std::vector<OffsetSpan> WindowsSlice(std::span<const int64_t> run_lengths, int64_t window,
                                     SplitMix64& rng, int64_t begin, int64_t end, int64_t total) {
  std::vector<OffsetSpan> spans;
  const size_t step = static_cast<size_t>(window);
  int64_t first = 0;  // the window's first offset
  for (size_t run = 0, last = 0; run < run_lengths.size() && first < end; run = last) {
    last = run + std::min(step, run_lengths.size() - run);
    const int64_t stop =
        std::accumulate(run_lengths.begin() + run, run_lengths.begin() + last, first);
    if (stop <= begin) {
      SkipShuffle(stop - first, rng);  // delivered; a later window holds begin
    } else if (begin <= first && stop <= end) {
      AppendSpan(spans, first, stop);
      if (end < total) SkipShuffle(stop - first, rng);  // a later window may hold end
    } else {
      AppendShuffledSlice(first, stop - first, std::max(begin, first) - first,
                          std::min(end, stop) - first, rng, spans);
    }
    first = stop;
  }
  return spans;
}

// LocalOrderSlice for quasi:W (QuasiOrder's draws: every run's shuffle, then the picks).
std::vector<OffsetSpan> QuasiSlice(std::span<const int64_t> run_lengths, int64_t window,
                                   SplitMix64& rng, int64_t begin, int64_t end, int64_t total) {
  std::vector<SplitMix64> run_rng;  // the generator as each run's shuffle began
  run_rng.reserve(run_lengths.size());
  for (int64_t length : run_lengths) {
    run_rng.push_back(rng);
    SkipShuffle(length, rng);
  }
  QuasiDraws draws(std::vector<int64_t>(run_lengths.begin(), run_lengths.end()), window);
  std::vector<int64_t> taken_at_begin;
  const int64_t last_cut = end < total ? end : begin;
  for (int64_t drawn = 0; drawn < last_cut; ++drawn) {
    if (drawn == begin) taken_at_begin = draws.taken();
    draws.Draw(rng);
  }
  if (begin == last_cut) taken_at_begin = draws.taken();

  std::vector<OffsetSpan> spans;
  int64_t first = 0;  // the run's first offset
  for (size_t run = 0; run < run_lengths.size(); ++run) {
    const int64_t length = run_lengths[run];
    const int64_t from = taken_at_begin[run];
    const int64_t to = end < total ? draws.taken()[run] : length;
    if (from == 0 && to == length) {
      AppendSpan(spans, first, first + length);
    } else if (from < to) {
      SplitMix64 replay = run_rng[run];
      AppendShuffledSlice(first, length, from, to, replay, spans);
    }
    first += length;
  }
  return spans;
}

}  // namespace

std::vector<int64_t> LocalOrder(RankBlock block, const SamplerOptions& sampler,
                                uint64_t stream_seed) {
  if (sampler.kind == Kind::kSequential) return std::move(block.entries);
  SplitMix64 rng(stream_seed);
  if (sampler.kind == Kind::kChunks) {
    ShuffleWindows(block, sampler.window, rng);
    return std::move(block.entries);
  }
  return QuasiOrder(block, sampler.window, rng);
}

std::vector<OffsetSpan> LocalOrderSlice(std::span<const int64_t> run_lengths,
                                        const SamplerOptions& sampler, uint64_t stream_seed,
                                        int64_t begin, int64_t end) {
  const int64_t total = std::accumulate(run_lengths.begin(), run_lengths.end(), int64_t{0});
  if (begin >= end) return {};
  SplitMix64 rng(stream_seed);
  switch (sampler.kind) {
    case Kind::kChunks: return WindowsSlice(run_lengths, sampler.window, rng, begin, end, total);
    case Kind::kQuasi: return QuasiSlice(run_lengths, sampler.window, rng, begin, end, total);
    default: return {OffsetSpan{begin, end}};  // sequential keeps the block's order
  }
}

}  // namespace h5feed::sampler
