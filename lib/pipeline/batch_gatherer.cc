#include "pipeline/batch_gatherer.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "pipeline/row_copy.h"

namespace h5feed::pipeline {

BatchGatherer::BatchGatherer(cache::ChunkCache& cache, RowLocator rows, int64_t row_bytes,
                             std::span<const int64_t> labels, Options options)
    : cache_(cache),
      rows_(std::move(rows)),
      row_bytes_(row_bytes),
      labels_(labels),
      options_(std::move(options)),
      verdicts_(rows_.chunks().chunks()) {
  const bool copies_as_stored = rows_.uniform() && rows_.largest().bytes() == row_bytes;
  if (rows_.chunks().chunks() < 1 || row_bytes < 1 ||
      (options_.make_sample == nullptr && !copies_as_stored)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "batch gatherer: {} chunks, slot rows of {} bytes, rows stored as {} bytes of "
                    "one shape ({}) and no sample maker",
                    rows_.chunks().chunks(), row_bytes, rows_.largest().bytes(),
                    rows_.uniform() ? "yes" : "no");
  }
  for (const ArrayField& field : options_.array_fields) {
    field_row_bytes_.push_back(field.row_bytes);
    column_data_.push_back(field.column ? field.column->data().data() : nullptr);
  }
  for (const MadeField& field : options_.made_fields) field_row_bytes_.push_back(field.row_bytes);
  for (const CorruptChunk& corrupt : options_.corrupt_chunks) {
    if (!options_.skip_corrupt_chunks || corrupt.chunk < 0 ||
        corrupt.chunk >= rows_.chunks().chunks()) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "batch gatherer: corrupt chunk {} named for a dataset of {} chunks, {}",
                      corrupt.chunk, rows_.chunks().chunks(),
                      options_.skip_corrupt_chunks ? "with skip_corrupt_chunks"
                                                   : "without skip_corrupt_chunks");
    }
    RecordCorrupt(corrupt.chunk, corrupt.what);
  }
}

void BatchGatherer::CheckWholeChunk(int64_t chunk, std::span<const uint8_t> data) const {
  const int64_t first_row = rows_.chunks().first_row(chunk);
  const int64_t end_row = first_row + rows_.chunks().rows_in(chunk);
  for (int64_t row = first_row; row < end_row; ++row) {
    const StoredRow at = rows_.at(row);
    options_.check_row(row, data.subspan(at.offset, at.bytes));
  }
}

void BatchGatherer::RecordCorrupt(int64_t chunk, const std::string& what) {
  // Two steps in flight may both meet the chunk; it is counted and reported once.
  if (!verdicts_.MarkCorrupt(chunk)) return;
  ++corrupt_chunks_;
  Warn("skipping corrupt chunk " + std::to_string(chunk) + " (" + what +
       "); its rows are left out of every batch");
}

void BatchGatherer::RecordUndecodable(int64_t row, const std::string& what) {
  {
    std::lock_guard lock(undecodable_mutex_);
    if (!undecodable_.insert(row).second) return;  // warned when first met
  }
  Warn("leaving out row " + std::to_string(row) + ", which does not decode (" + what +
       "); the other rows of its chunk are delivered");
}

void BatchGatherer::Warn(const std::string& message) {
  // Without a "h5feed: ": each front end leads a warning with its own prefix.
  std::lock_guard lock(warn_mutex_);
  if (options_.warn) {
    options_.warn(message);
  } else {
    std::cerr << "h5feed: warning: " << message << '\n';
  }
}

int64_t BatchGatherer::Gather(std::span<const int64_t> rows, int64_t step,
                              const memory::SlotView& slot, int64_t epoch) {
  const auto count = static_cast<int64_t>(rows.size());
  const auto row_bytes = static_cast<size_t>(row_bytes_);
  if (count > static_cast<int64_t>(slot.labels.size())) {
    throw MakeError(ErrorCode::kInternal, "batch gatherer: {} rows for a slot of {}", count,
                    slot.labels.size());
  }
  // (chunk, position in the batch), sorted: each chunk's rows form one run.
  std::vector<std::pair<int64_t, int64_t>> by_chunk(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    by_chunk[i] = {rows_.chunks().chunk_of(rows[i]), static_cast<int64_t>(i)};
  }
  std::sort(by_chunk.begin(), by_chunk.end());
  std::vector<size_t> group_begin;
  for (size_t i = 0; i < by_chunk.size(); ++i) {
    if (i == 0 || by_chunk[i].first != by_chunk[i - 1].first) group_begin.push_back(i);
  }
  group_begin.push_back(by_chunk.size());
  const size_t groups = group_begin.size() - 1;
  // Per position: its row is not delivered (its chunk skipped, or the row does not decode).
  std::vector<char> left_out(rows.size(), 0);  // one writer per element (one group a position)
  const SlotWrites writes = SlotWritesFor(slot.images.size());

  // Row `row`'s value of each asked array field (the `place`-th row of its chunk, read with it
  // into `companion`), to `position` of the slot's field regions, and each made field's: in
  // the group's task, beside the image, so that the fields are copied in parallel too.
  auto copy_fields = [&](size_t position, int64_t row, size_t place,
                         std::span<const uint8_t> companion) {
    const size_t arrays = options_.array_fields.size();
    for (size_t k = 0; k < arrays; ++k) {
      const size_t bytes = field_row_bytes_[k];
      const uint8_t* column = column_data_[k];
      const uint8_t* from =
          column != nullptr
              ? column + static_cast<size_t>(row) * bytes
              : companion.data() + options_.array_fields[k].companion_offset + place * bytes;
      std::memcpy(slot.fields[k].data() + position * bytes, from, bytes);
    }
    for (size_t j = 0; j < options_.made_fields.size(); ++j) {
      options_.made_fields[j].make(
          epoch, row, slot.fields[arrays + j].data() + position * field_row_bytes_[arrays + j]);
    }
  };
  // Copies group g's rows from its chunk: waiting for it when `wait`, else only if no other
  // task is loading it (returns false then, having done nothing).
  auto gather_group = [&](size_t g, bool wait) {
    const int64_t chunk = by_chunk[group_begin[g]].first;
    const bool skip = options_.skip_corrupt_chunks;
    auto leave_out_group = [&] {
      for (size_t k = group_begin[g]; k < group_begin[g + 1]; ++k) {
        left_out[static_cast<size_t>(by_chunk[k].second)] = 1;
      }
    };
    if (skip && verdicts_.corrupt(chunk)) {
      leave_out_group();
      return true;
    }
    try {
      std::optional<cache::ChunkCache::Ref> ref =
          wait ? cache_.Get(chunk, step) : cache_.GetUnlessLoading(chunk, step);
      if (!ref) return false;
      const std::span<const uint8_t> data = ref->data();
      // Judged whole before any row of it is copied: no step delivers a row of a chunk another
      // step is about to find corrupt. Its rows need no second check in this step.
      bool rows_checked = false;
      if (skip && options_.check_row && !verdicts_.sound(chunk)) {
        CheckWholeChunk(chunk, data);
        verdicts_.MarkSound(chunk);
        rows_checked = true;
      }
      const int64_t first_row = rows_.chunks().first_row(chunk);
      for (size_t k = group_begin[g]; k < group_begin[g + 1]; ++k) {
        const auto position = static_cast<size_t>(by_chunk[k].second);
        const int64_t row = rows[position];
        uint8_t* dest = slot.images.data() + position * row_bytes;
        const StoredRow at = rows_.at(row);
        const std::span<const uint8_t> stored = data.subspan(at.offset, at.bytes);
        // Checked first: the check brings the row into the cache, where the copy finds it. A
        // failure here of a chunk judged sound (its file changed under the run) skips it as a
        // failure of its verdict would.
        if (options_.check_row && !rows_checked) options_.check_row(row, stored);
        try {
          if (options_.make_sample) {
            options_.make_sample(epoch, row, at, stored, dest);
          } else {
            CopyRow(dest, stored.data(), row_bytes, writes);
          }
          copy_fields(position, row, static_cast<size_t>(row - first_row), ref->companion());
        } catch (const Error& error) {
          if (!skip || error.code() != ErrorCode::kCorrupt) throw;
          RecordUndecodable(row, error.what());
          left_out[position] = 1;
        }
      }
    } catch (const Error& error) {
      if (!skip || error.code() != ErrorCode::kCorrupt) throw;
      RecordCorrupt(chunk, error.what());
      leave_out_group();  // rows of the group already copied are dropped with the rest
    }
    return true;
  };
  // Chunks another task is loading come last. Steps in flight together need the same chunks
  // and visit them in the same order: waiting on each chunk the other step is loading, two
  // threads loaded one chunk at a time (docs/reader.md, step 3, "Chunks"). Leaving those for a
  // second pass, each loads the next chunk nobody is loading yet.
  std::vector<char> later(groups, 0);  // one writer per element
  tbb::parallel_for(tbb::blocked_range<size_t>(0, groups, 1),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t g = range.begin(); g < range.end(); ++g)
                        later[g] = !gather_group(g, false);
                      FinishSlotWrites(writes);  // before this task's completion publishes the rows
                    });
  std::vector<size_t> waited;
  for (size_t g = 0; g < groups; ++g) {
    if (later[g]) waited.push_back(g);
  }
  tbb::parallel_for(tbb::blocked_range<size_t>(0, waited.size(), 1),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i < range.end(); ++i)
                        gather_group(waited[i], true);
                      FinishSlotWrites(writes);
                    });

  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    const auto from = static_cast<size_t>(i);
    if (left_out[from]) continue;
    const auto to = static_cast<size_t>(kept++);
    // to <= from: moving rows down in order never overwrites a row still to be moved.
    if (to != from) {
      std::memcpy(slot.images.data() + to * row_bytes, slot.images.data() + from * row_bytes,
                  row_bytes);
      for (size_t k = 0; k < field_row_bytes_.size(); ++k) {
        const size_t bytes = field_row_bytes_[k];
        std::memcpy(slot.fields[k].data() + to * bytes, slot.fields[k].data() + from * bytes,
                    bytes);
      }
    }
    const auto row = static_cast<size_t>(rows[from]);
    slot.indices[to] = rows[from];
    // A file without labels has none to deliver: its slots' labels stay unset.
    if (!labels_.empty()) slot.labels[to] = labels_[row];
  }
  if (kept != count) samples_skipped_ += static_cast<uint64_t>(count - kept);
  return kept;
}

}  // namespace h5feed::pipeline
