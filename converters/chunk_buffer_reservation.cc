#include "chunk_buffer_reservation.h"

#include <algorithm>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {

ChunkBufferReservation::ChunkBufferReservation(MemoryBudget& budget, int64_t chunk_bytes,
                                               int64_t group_scratch, int64_t group_values,
                                               int64_t sample_values, int threads,
                                               const OptionNames& names,
                                               std::string_view chunk_option)
    : budget_(budget) {
  const int64_t buffers = 3 * chunk_bytes + chunk_bytes / 64 + (128 << 10) + group_scratch;
  const int64_t group_bytes = buffers + group_values;
  const int64_t wanted = 2 * int64_t{threads} + 2;
  const int64_t half = budget.limit() / 2 - chunk_bytes;
  const int64_t affordable = half / group_bytes;
  const std::string memory = NameOption(names, "ConvertOptions", "memory");
  if (affordable < 1 && buffers <= half) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} {} is too small for samples of {} of field values each: a conversion "
                    "holds {} of them twice (as read and as packed), with their chunk's buffers, "
                    "in at most half the limit; raise {} to {} or more",
                    memory, ByteSize(budget.limit()), ByteSize(sample_values),
                    sample_values > 0 ? group_values / (2 * sample_values) : 0, memory,
                    ByteSize(2 * (group_bytes + chunk_bytes)));
  }
  if (affordable < 1) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} {} is too small for chunks of {}: a conversion holds at least {} of chunk buffers, in "
        "at most half the limit; raise {} to {} or more, or lower {}",
        memory, ByteSize(budget.limit()), ByteSize(chunk_bytes),
        ByteSize(group_bytes + chunk_bytes), memory, ByteSize(2 * (group_bytes + chunk_bytes)),
        NameOption(names, "ConvertOptions", chunk_option));
  }
  groups_ = static_cast<size_t>(std::min(wanted, affordable));
  bytes_ = static_cast<int64_t>(groups_) * group_bytes + chunk_bytes;
  budget.Reserve(bytes_);
}

ChunkBufferReservation::~ChunkBufferReservation() { budget_.Unreserve(bytes_); }

}  // namespace h5feed::converters
