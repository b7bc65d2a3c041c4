#include "chunk_rows.h"

#include <algorithm>
#include <limits>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {

ChunkRows::ChunkRows(int64_t samples, int64_t rows_per_chunk)
    : samples_(samples), max_rows_(rows_per_chunk) {
  if (samples < 0 || rows_per_chunk < 1) {
    throw MakeError(ErrorCode::kInvalidArgument, "chunk rows: {} rows in chunks of {}", samples,
                    rows_per_chunk);
  }
  chunks_ = samples / rows_per_chunk + (samples % rows_per_chunk != 0 ? 1 : 0);
}

ChunkRows::ChunkRows(std::vector<int64_t> first_rows) {
  if (first_rows.empty() || first_rows.front() != 0) {
    throw Error(ErrorCode::kInvalidArgument, "chunk rows: the first chunk must start at row 0");
  }
  for (size_t c = 0; c + 1 < first_rows.size(); ++c) {
    const int64_t rows = first_rows[c + 1] - first_rows[c];
    if (rows < 1) {
      throw MakeError(ErrorCode::kInvalidArgument, "chunk rows: chunk {} holds no row", c);
    }
    max_rows_ = std::max(max_rows_, rows);
  }
  samples_ = first_rows.back();
  chunks_ = static_cast<int64_t>(first_rows.size()) - 1;
  if (chunks_ > std::numeric_limits<int32_t>::max()) {
    throw MakeError(ErrorCode::kInvalidArgument, "chunk rows: {} chunks; at most 2^31 - 1",
                    chunks_);
  }
  auto table = std::make_shared<Table>();
  table->chunk_of_row.resize(static_cast<size_t>(samples_));
  for (int64_t c = 0; c < chunks_; ++c) {
    std::fill(table->chunk_of_row.begin() + first_rows[static_cast<size_t>(c)],
              table->chunk_of_row.begin() + first_rows[static_cast<size_t>(c) + 1],
              static_cast<int32_t>(c));
  }
  table->first_rows = std::move(first_rows);
  table_ = std::move(table);
}

}  // namespace h5feed
