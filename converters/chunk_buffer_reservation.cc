#include "chunk_buffer_reservation.h"

#include <algorithm>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {

ChunkBufferReservation::ChunkBufferReservation(MemoryBudget& budget, int64_t chunk_bytes,
                                               int64_t group_extra, int threads,
                                               const OptionNames& names,
                                               std::string_view chunk_option)
    : budget_(budget) {
  const int64_t group_bytes = 3 * chunk_bytes + chunk_bytes / 64 + (128 << 10) + group_extra;
  const int64_t wanted = 2 * int64_t{threads} + 2;
  const int64_t affordable = (budget.limit() / 2 - chunk_bytes) / group_bytes;
  if (affordable < 1) {
    const std::string memory = NameOption(names, "ConvertOptions", "memory");
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
