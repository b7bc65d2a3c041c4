#pragma once
// What a conversion's pipeline (conversion.cc) asks of the file's layout: how its groups are
// sized, where a sample is read to and how it is stored, how samples are packed into chunks
// and a chunk encoded, and what the report says about the layout. The pipeline owns everything
// else (the stored order, the memory budget, reading and skipping, cancelling, progress and
// the ending) and chooses the packer once, by the source:
//   - fixed_chunk_packer.h: a source of one shape, a version 1 file of K images a chunk;
//   - flat_chunk_packer.h: a source of images at their own size, a version 2 "flat" file of
//     whole images, raw or JPEG, packed into chunks of C bytes.
//
// Thread-safety: Read() and Encode() run on many threads at once, each on a group of its own;
// Pack() and Flush() run on one thread at a time, groups in stored order, and own the partial
// chunk.

#include <cstdint>
#include <string>

#include "convert_report.h"
#include "h5feed/encoding_counts.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "make_error.h"
#include "sample_group.h"
#include "sample_source.h"

namespace h5feed::converters {

// How a layout sizes the pipeline's groups.
struct GroupPlan {
  // Samples per group: few enough that packing one group completes at most one chunk.
  int64_t samples = 0;
  // The bytes of a chunk before compression. A group's samples fit in as many.
  int64_t chunk_bytes = 0;
  // What a group holds beside its chunk-sized buffers, for the memory budget
  // (chunk_buffer_reservation.h).
  int64_t scratch_bytes = 0;
  // The ConvertOptions field that makes chunks smaller, for the budget's message.
  std::string chunk_option;
};

// What the pipeline wrote: its chunks' bytes, and its images counted from their records.
struct WrittenChunks {
  uint64_t stored_bytes = 0;   // the chunks as stored (compressed)
  uint64_t raw_bytes = 0;      // H x W x C of each image
  uint64_t payload_bytes = 0;  // each image's stored bytes (a JPEG file, or its pixels)
  EncodingCounts encodings;    // the images by how each is stored
};

class ChunkPacker {
 public:
  virtual ~ChunkPacker() = default;

  virtual const GroupPlan& plan() const = 0;
  // Sets the file's layout in the options the Writer is created with.
  virtual void SetLayout(WriterOptions& options) const = 0;

  // Reads row `row` of `source` as the group's sample j: appends its stored bytes to
  // group.samples and sets group.stored[j]. Throws what the source throws (the pipeline then
  // truncates group.samples to where they were), and Error(kInternal) for a sample this layout
  // cannot store.
  virtual SampleInfo Read(const SampleSource& source, int64_t row, SampleGroup& group,
                          int64_t j) const = 0;

  // Packs the group's readable samples after those of the groups before; a chunk this
  // completes is handed to group.chunk (emptied first).
  virtual void Pack(SampleGroup& group) = 0;
  // Hands the last, partial chunk (if any) to group.chunk: the token after the last group.
  // Returns true when it changed the file's layout (SetLayout) to fit what was stored, which
  // a layout may do only while no chunk was handed before: the pipeline then makes the file
  // anew with that layout, before the chunk is encoded.
  virtual bool Flush(SampleGroup& group) = 0;

  // Compresses and checksums group.chunk (not empty) into group.encoded.
  virtual void Encode(const Writer& writer, SampleGroup& group) const = 0;

  // Fills the report's fields of this layout, once the file is finished.
  virtual void Report(const WrittenChunks& written, ConvertReport& report) const = 0;
};

// For a packer's Read: throws Error(kInternal) when the source's Read of `row` returned without
// asking `dest` for memory, a bug of the source that would leave the sample's room unwritten.
inline void RequireAsked(const SampleDestination& dest, const SampleSource& source, int64_t row) {
  if (!dest.asked()) {
    throw MakeError(ErrorCode::kInternal, "a {} source read {} without asking for its memory",
                    source.kind(), source.name(row));
  }
}

}  // namespace h5feed::converters
