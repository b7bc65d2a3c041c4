#pragma once
// The array fields a loader reads with the image chunks rather than holding them whole
// (docs/reader.md, "Fields too large for memory"). The load of image chunk c reads the rows of
// chunk c of every streamed field, checks them, and attaches them to the chunk's cache entry
// (ChunkCache's companion), so one budget, one eviction and one read-ahead plan cover both,
// and the gatherer copies a row's values out of it as it copies the row's pixels. In a file of
// one image size the field's chunk c holds exactly those rows (docs/format.md, "Fields") and is
// read into the entry as it is; in a file of images at their own size the field's chunks
// (about 1 MiB of rows) do not follow the images', and each that holds some of the rows is
// decoded and those rows copied out. A field held whole costs no read after Open; a streamed
// one costs a read per image chunk read, and its memory is the cache's.
//
// Read ahead with the images (RunControl): where the images' source reads ahead of its loads
// (a cold local file, a remote one), the chunks the walker names are fetched with the field
// chunks that hold their rows, each from its field's source, which reads them by address from
// the field's chunk table (index/field_chunk_index.h). Files written before those tables have
// their fields read through HDF5, not ahead. A run's stop ends every source's loads.
//
// Which fields: all asked fields are held while their values fit
// LoaderOptions::held_field_bytes; beyond it, the streamable ones (arrays of at most 3
// dimensions in chunks of whole rows, with filters h5feed undoes: every array h5feed writes)
// are streamed, the largest first, until the rest fit.
//
// Thread-safety: Load may run on many threads at once (each field's chunk source is
// thread-safe); RunControl's members are called between runs, and the read-ahead's as
// source/read_ahead.h says; the rest is immutable after construction.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/field.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "io/ahead.h"
#include "source/chunk_source.h"
#include "source/read_ahead.h"
#include "source/run_control.h"

namespace h5feed::loader {

// LoaderOptions::held_field_bytes, 0 read as its default: a quarter of the machine's memory.
uint64_t HeldFieldLimit(const LoaderOptions& options);

class StreamedFields final : public source::RunControl, private source::ReadAhead {
 public:
  // Chooses among `asked` (AskedFields) of `dataset`, whose chunks `images` reads (both must
  // outlive it), as the class comment says, and opens a chunk source for each field streamed.
  // Throws what index::FieldChunkIndex and source::OpenChunkSource throw.
  StreamedFields(const index::DatasetIndex& dataset, source::ChunkSource& images,
                 const std::vector<FieldSpec>& asked, const LoaderOptions& options);
  ~StreamedFields();
  StreamedFields(const StreamedFields&) = delete;
  StreamedFields& operator=(const StreamedFields&) = delete;

  bool empty() const { return fields_.empty(); }
  bool Streams(std::string_view name) const { return Find(name) != nullptr; }
  // The fields streamed, largest first (Loader::streamed_fields).
  std::vector<std::string> names() const;
  // Where field `name`'s rows of a chunk start in what Load attaches: row j of the chunk at
  // this + j x its row bytes. Only for a field Streams.
  size_t OffsetOf(std::string_view name) const;
  // The bytes Load attaches to each chunk: every streamed field's rows of a whole chunk.
  int64_t companion_bytes() const { return companion_bytes_; }

  // The cache's load of chunk `chunk`: its images (ChunkSource::Load), then, when fields are
  // streamed, that chunk's rows of every one, each checked against the field's checksums,
  // attached to `target`. Returns the bytes read and decoded. Throws what the image load
  // throws, Error(kCorrupt) for a damaged field row as a field read whole does
  // (index::CheckFieldRow: the row, its chunk, the field and the file), and what the field's
  // chunk source throws (a chunk that does not decode: the field's dataset and the chunk).
  cache::LoadResult Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) const;

  // RunControl, for the images' source and every streamed field's: the images' read-ahead
  // alone where no field's source reads ahead this run, else this object's.
  void StopLoadsOn(std::stop_token stop) override;
  source::ReadAhead* read_ahead() override;

 private:
  struct Field;
  const Field* Find(std::string_view name) const;
  // The chunks of `field` that hold rows of image chunk `chunk`: [begin, end).
  std::pair<int64_t, int64_t> FieldChunksOf(const Field& field, int64_t chunk) const;
  // ReadAhead: image chunk `chunk` and its field chunks, each from its source's read-ahead.
  io::Ahead Fetch(int64_t chunk) override;
  void Drop(int64_t chunk) override;
  void DropAll() override;
  // Rows [first, first + rows) of `field` into `values` (rows x its row bytes, or more).
  static index::ChunkReadStats ReadRows(const Field& field, int64_t first, int64_t rows,
                                        std::span<uint8_t> values);

  const index::DatasetIndex& images_;
  source::ChunkSource& images_source_;
  source::ReadAhead* images_ahead_ = nullptr;  // this run's, or null
  std::vector<std::unique_ptr<Field>> fields_;
  int64_t companion_bytes_ = 0;
  bool verify_ = true;
};

}  // namespace h5feed::loader
