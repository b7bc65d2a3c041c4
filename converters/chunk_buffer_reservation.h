#pragma once
// The memory budget's share for a conversion's chunk buffers (memory_budget.h), set aside for
// the whole conversion: each group of samples in flight holds its samples, the chunk packing
// handed it and that chunk compressed (zstd's and deflate's bounds exceed the input by under
// 1% + 64 KiB), plus any per-group scratch; the packer holds one partial chunk. Groups take at
// most half the budget, so that decoding keeps the other half.
//
// Thread-safety: none needed; made and destroyed on the converting thread.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "h5feed/option_names.h"

#include "memory_budget.h"

namespace h5feed::converters {

class ChunkBufferReservation {
 public:
  // Reserves for 2 x threads + 2 groups, or as many as half the budget holds. A group holds,
  // beside its three chunk-sized buffers, `group_scratch` bytes and `group_values`, its
  // samples' field values (as read and as packed, of `sample_values` bytes a sample).
  // `chunk_option`: the ConvertOptions field that makes chunks smaller, named by `names`
  // (ConvertOptions' option_names) in the message. Throws Error(kInvalidArgument) when not
  // even one group fits, naming the field values when they are what does not fit (smaller
  // chunks cannot help then).
  ChunkBufferReservation(MemoryBudget& budget, int64_t chunk_bytes, int64_t group_scratch,
                         int64_t group_values, int64_t sample_values, int threads,
                         const OptionNames& names, std::string_view chunk_option);
  ~ChunkBufferReservation();
  ChunkBufferReservation(const ChunkBufferReservation&) = delete;
  ChunkBufferReservation& operator=(const ChunkBufferReservation&) = delete;

  // The number of groups that may be in flight.
  size_t groups() const { return groups_; }

 private:
  MemoryBudget& budget_;
  size_t groups_ = 0;
  int64_t bytes_ = 0;
};

}  // namespace h5feed::converters
