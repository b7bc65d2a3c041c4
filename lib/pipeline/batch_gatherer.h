#pragma once
// Fills a host slot with the rows of one step: each row's pixels copied out of its decoded
// chunk (ChunkCache::Get pins the chunk while its rows are copied), its label, its dataset
// row and its values of the array fields asked alongside (held whole in memory, or read with
// the chunk: ChunkCache::Ref::companion). Rows are grouped
// by chunk so each chunk is looked up once per step, and the chunks of a step are fetched in
// parallel (a step of the random sampler touches about one chunk per row).
//
// Each row may be checked just before it is copied (Options::check_row), while the copy is about
// to read it anyway: checking a chunk as a whole when it is loaded reads it from memory once
// more, which cost uncompressed files a fifth of their speed (docs/reader.md).
//
// Corrupt chunks: by default a chunk whose read fails with Error(kCorrupt), or one of whose
// rows fails check_row with it, fails the step (the error names the file, the dataset and the
// chunk). With skip_corrupt_chunks the chunk is left out whole instead, and the decision is the
// chunk's own, made from its bytes before any of its rows is delivered: the first step to
// gather from it checks every row of it (ChunkVerdicts), so every step that touches it gets the
// same answer whichever thread reached it first, and batches stay a function of the seed, the
// epoch, the rank and the world size (a resume delivers what an uninterrupted run does). Its
// rows are dropped from the batch (the remaining rows keep their order), later steps skip it
// without reading it again, and one warning per chunk goes to the warning function (stderr
// when none). A row that passes its check (or has none) but does not decode (the sample maker
// or a made field throwing kCorrupt) is left out alone, from every step that holds it, warned
// once: whether it decodes depends on its bytes and its epoch's crop, never on timing. Chunks
// the caller knows corrupt before any step (Options::corrupt_chunks: those holding a damaged
// row of a field read whole at open) are judged so when the gatherer is made, warned of and
// counted then, and left out as the others.
//
// Thread-safety: Gather may run for several steps at once. The warning function is called from
// worker threads, one call at a time. Borrows the cache and the labels, which must outlive it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/field.h"
#include "memory/slot_layout.h"
#include "pipeline/chunk_verdicts.h"
#include "row_locator.h"

namespace h5feed::pipeline {

using WarningFunction = std::function<void(const std::string&)>;

class BatchGatherer {
 public:
  // Throws Error(kCorrupt) when the bytes of dataset row `row` are not what was stored.
  using RowCheck = std::function<void(int64_t row, std::span<const uint8_t> bytes)>;

  // How the stored bytes of row `row` (`at` in its chunk) become the slot's row of
  // `row_bytes` at `dest`: decoded, cropped and resized for epoch `epoch` (own_size_sample.h).
  // Called from worker threads at once.
  using SampleMaker = std::function<void(int64_t epoch, int64_t row, const StoredRow& at,
                                         std::span<const uint8_t> stored, uint8_t* dest)>;

  // A slot field whose row is made rather than copied: `row_bytes` of row `row` made at `dest`
  // for epoch `epoch` (the masks of a file of images at their own size, cropped with the views
  // as the image is: loader/own_size_masks.h). Called from worker threads at once.
  struct MadeField {
    size_t row_bytes = 0;
    std::function<void(int64_t epoch, int64_t row, uint8_t* dest)> make;
  };

  // Where the rows of one of the slot's array fields come from: a column of every dataset row
  // held in memory, or, without one, the rows read with each chunk (Ref::companion), the
  // chunk's j-th row at companion_offset + j x row_bytes.
  struct ArrayField {
    std::shared_ptr<const FieldColumn> column;
    size_t companion_offset = 0;
    size_t row_bytes = 0;  // as long as the slot's rows of the field
  };

  // A chunk known corrupt before any step (a damaged row of a field read whole at open), and
  // what was found of it, for its warning.
  struct CorruptChunk {
    int64_t chunk = 0;
    std::string what;
  };

  struct Options {
    bool skip_corrupt_chunks = false;
    WarningFunction warn;  // null: print to stderr
    RowCheck check_row;    // null: rows are copied unchecked
    // Null: rows are copied as they lie in their chunks, which `rows` must then store as raw
    // pixels of row_bytes each.
    SampleMaker make_sample;
    // The array fields of the slot (memory::SlotView::fields), in its order.
    std::vector<ArrayField> array_fields;
    // The slot's fields after those, made row by row.
    std::vector<MadeField> made_fields;
    // With skip_corrupt_chunks: chunks left out from the first step, each warned of and
    // counted when the gatherer is made, as a chunk a step finds corrupt is when found.
    std::vector<CorruptChunk> corrupt_chunks;
  };

  // `labels`: one per dataset row, or none (a file without labels). `rows` says which chunk holds
  // each row and where it lies there; each row fills `row_bytes` bytes of the slot. Throws
  // Error(kInvalidArgument) when rows are to be copied (no sample maker) that are not raw pixels of
  // row_bytes each, or for a corrupt chunk (Options::corrupt_chunks) the file does not have.
  BatchGatherer(cache::ChunkCache& cache, RowLocator rows, int64_t row_bytes,
                std::span<const int64_t> labels, Options options);

  // Gathers `rows` (dataset rows of epoch `epoch`, at most the slot's capacity) for cache
  // step `step` into slot.images / labels / indices / fields. Returns the rows delivered:
  // rows.size() minus the rows left out as corrupt. Throws what the cache throws otherwise.
  int64_t Gather(std::span<const int64_t> rows, int64_t step, const memory::SlotView& slot,
                 int64_t epoch = 0);

  uint64_t corrupt_chunks_skipped() const { return corrupt_chunks_.load(); }  // distinct chunks
  uint64_t samples_skipped() const { return samples_skipped_.load(); }        // rows left out

 private:
  // Checks every row of `chunk` (decoded as `data`) with check_row: the verdict of a chunk met
  // with skip_corrupt_chunks. Throws what check_row throws.
  void CheckWholeChunk(int64_t chunk, std::span<const uint8_t> data) const;
  void RecordCorrupt(int64_t chunk, const std::string& what);
  void RecordUndecodable(int64_t row, const std::string& what);
  void Warn(const std::string& message);

  cache::ChunkCache& cache_;
  const RowLocator rows_;
  const int64_t row_bytes_;
  const std::span<const int64_t> labels_;
  const Options options_;
  // Each slot field's bytes a row (an array field's rows all alike: row r lies at r times this
  // in its column, or at its place in its chunk times this in the chunk's companion), array
  // fields first, then made fields.
  std::vector<size_t> field_row_bytes_;
  // Each array field's column's values (options_.array_fields[k].column), null where its rows
  // come with each chunk.
  std::vector<const uint8_t*> column_data_;

  ChunkVerdicts verdicts_;  // used with skip_corrupt_chunks only
  std::mutex undecodable_mutex_;
  std::unordered_set<int64_t> undecodable_;  // rows warned of; guarded by undecodable_mutex_
  std::mutex warn_mutex_;                    // serialises calls of options_.warn
  std::atomic<uint64_t> corrupt_chunks_{0};
  std::atomic<uint64_t> samples_skipped_{0};
};

}  // namespace h5feed::pipeline
