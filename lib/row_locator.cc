#include "row_locator.h"

#include <algorithm>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {

RowLocator::RowLocator(int64_t samples, int64_t rows_per_chunk, const ImageShape& shape)
    : chunks_(samples, rows_per_chunk),
      chunk_bytes_(rows_per_chunk * shape.bytes()),
      largest_(shape) {
  counts_[static_cast<size_t>(ImageEncoding::kRaw)] = samples;
}

RowLocator::RowLocator(std::vector<StoredRow> table, ChunkRows chunks, int64_t chunk_bytes)
    : chunks_(std::move(chunks)), chunk_bytes_(chunk_bytes), largest_{0, 0, 0} {
  if (static_cast<int64_t>(table.size()) != chunks_.samples()) {
    throw MakeError(ErrorCode::kInvalidArgument, "row locator: {} entries for {} rows",
                    table.size(), chunks_.samples());
  }
  for (const StoredRow& row : table) {
    largest_.height = std::max(largest_.height, row.shape.height);
    largest_.width = std::max(largest_.width, row.shape.width);
    largest_.channels = std::max(largest_.channels, row.shape.channels);
    const auto e = static_cast<size_t>(row.encoding);
    if (e < counts_.size()) ++counts_[e];
  }
  table_ = std::make_shared<const std::vector<StoredRow>>(std::move(table));
}

}  // namespace h5feed
