#include "merge.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "make_error.h"
#include "output_path.h"
#include "part_set.h"
#include "sampler/permutation.h"
#include "source/open_chunk_source.h"

namespace h5feed::converters {
namespace {

// Throws Error(kCancelled), the temporary file removed, once options.cancel is set.
void StopIfCancelled(const MergeOptions& options, Writer& writer) {
  if (!options.cancel || !options.cancel->load(std::memory_order_relaxed)) return;
  const std::string temporary = writer.temporary_path();
  writer.Abandon();
  throw MakeError(ErrorCode::kCancelled, "merge interrupted; removed {}, {} was not written",
                  temporary, writer.path());
}

// Whether the merged file's chunks each hold K rows (version 1), so that a part's short last
// chunk cannot be copied into its middle; a version 2 chunk holds whole images of any number.
bool ChunksHoldKRows(const index::DatasetIndex& index) {
  return index.stored_layout != StoredLayout::kFlat;
}

// The chunks a part hands over untouched: all of a version 2 part's; a version 1 part's but a
// last one of fewer than K images.
int64_t CopiedChunks(const index::DatasetIndex& index) {
  const int64_t chunks = index.chunk_count();
  if (!ChunksHoldKRows(index) || chunks == 0) return chunks;
  return index.samples_in_chunk(chunks - 1) < index.chunk_samples ? chunks - 1 : chunks;
}

// Each part's chunks, read as any reader reads them: its whole chunks checked.
std::vector<std::unique_ptr<source::ChunkSource>> OpenSources(const PartSet& set) {
  std::vector<std::unique_ptr<source::ChunkSource>> sources;
  for (const PartFile& part : set.parts) {
    sources.push_back(source::OpenChunkSource(part.index, source::ChunkSourceOptions{}));
  }
  return sources;
}

// Which part each copied chunk of the merged file comes from, in file order: every part's
// number once per chunk it hands over, shuffled by `seed` (sampler::Shuffle, the stored order's
// Fisher-Yates). Each part's chunks keep their own order, so each part is read front to back.
std::vector<int32_t> Interleaving(const std::vector<int64_t>& chunks_per_part, uint64_t seed) {
  std::vector<int32_t> owners;
  for (size_t k = 0; k < chunks_per_part.size(); ++k) {
    owners.insert(owners.end(), static_cast<size_t>(chunks_per_part[k]), static_cast<int32_t>(k));
  }
  sampler::SplitMix64 rng(seed);
  sampler::Shuffle(std::span<int32_t>(owners), rng);
  return owners;
}

// Writes chunks and keeps the merged file's rows and report in step with them.
class MergedFile {
 public:
  MergedFile(Writer& writer, DatasetDescription& description, MergeReport& report,
             const MergeOptions& options, int64_t chunks_total)
      : writer_(writer),
        description_(description),
        report_(report),
        options_(options),
        progress_{0, chunks_total} {}

  // Chunk `chunk` of `part` (read from `source`), as stored, with its rows.
  void Copy(PartFile& part, const source::ChunkSource& source, int64_t chunk) {
    const index::DatasetIndex& index = part.index;
    const index::ChunkLocation& at = index.chunks[static_cast<size_t>(chunk)];
    if (at.filter_mask != 0) {
      // h5feed's writer applies every filter to every chunk: a merged chunk is stored with mask 0.
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} skips filters (mask {}), which h5feed never writes: the file was changed by another "
          "program; convert that part again",
          source.Describe(chunk), at.filter_mask);
    }
    source.ReadStored(chunk, encoded_.bytes);
    encoded_.checksum = at.checksum;
    const int64_t first = index.first_row_of_chunk(chunk);
    encoded_.images = index.samples_in_chunk(chunk);
    encoded_.image_checksums.clear();
    encoded_.stored.clear();
    uint64_t packed = 0;
    for (int64_t row = first; row < first + encoded_.images; ++row) {
      const size_t r = static_cast<size_t>(row);
      if (ChunksHoldKRows(index)) {
        encoded_.image_checksums.push_back(index.row_checksums[r]);
      } else {
        // The Writer places a chunk's images one after another from its first byte, as the
        // part's writer did: a table with gaps would put them elsewhere in the merged file.
        const StoredRow image = index.rows.at(row);
        if (image.offset != packed) {
          throw MakeError(
              ErrorCode::kCorrupt,
              "{}: image {} starts at byte {} of its chunk, not {} where h5feed's writer puts it",
              part.path, row, image.offset, packed);
        }
        packed += image.bytes;
        encoded_.stored.push_back({static_cast<int32_t>(image.shape.height),
                                   static_cast<int32_t>(image.shape.width),
                                   static_cast<int32_t>(image.shape.channels), image.encoding,
                                   image.bytes, index.row_checksums[r]});
      }
      if (index.labelled) description_.labels.push_back(index.labels[r]);
      description_.sources.push_back(std::move(part.sources[r]));
    }
    Write();
    AppendFields(part, first, encoded_.images);
    report_.copied_chunks += 1;
    report_.copied_bytes += encoded_.bytes.size();
  }

  // Rows [first, first + rows) of every field of `part`, after the rows appended before.
  void AppendFields(const PartFile& part, int64_t first, int64_t rows) {
    if (part.fields.empty()) return;
    fields_.resize(part.fields.size());
    for (size_t f = 0; f < part.fields.size(); ++f) {
      fields_[f].Clear();
      for (int64_t row = first; row < first + rows; ++row)
        fields_[f].Append(part.fields[f].row(row));
    }
    writer_.AppendFields(fields_);
  }

  // Version 1: `rows` rows of pixels (K or fewer), compressed here.
  void Encode(std::vector<uint8_t>& pixels, int64_t rows) {
    writer_.EncodeInto(pixels, rows, encoded_);
    Write();
    report_.repacked_rows += rows;
  }

 private:
  void Write() {
    StopIfCancelled(options_, writer_);
    writer_.Append(encoded_);
    report_.stored_bytes += encoded_.bytes.size();
    progress_.chunks_done += 1;
    if (options_.on_progress) options_.on_progress(progress_);
  }

  Writer& writer_;
  DatasetDescription& description_;
  MergeReport& report_;
  const MergeOptions& options_;
  MergeProgress progress_;
  EncodedChunk encoded_;             // one buffer for every chunk
  std::vector<FieldColumn> fields_;  // one chunk's rows of every field
};

// Version 1: the rows of every part's short last chunk, in part order, decompressed and
// written again in chunks of K, the last one short.
void RepackShortChunks(PartSet& set,
                       const std::vector<std::unique_ptr<source::ChunkSource>>& sources,
                       MergedFile& merged, DatasetDescription& description) {
  const int64_t k = set.writer.chunk_images;
  const int64_t image_bytes = set.writer.image_shape.bytes();
  std::vector<uint8_t> pending;  // rows waiting for a chunk
  int64_t pending_rows = 0;
  std::vector<uint8_t> decoded;
  std::vector<uint8_t> chunk;
  auto emit = [&](int64_t rows) {
    const size_t bytes = static_cast<size_t>(rows * image_bytes);
    chunk.assign(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(bytes));
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(bytes));
    pending_rows -= rows;
    merged.Encode(chunk, rows);
  };
  for (size_t p = 0; p < set.parts.size(); ++p) {
    PartFile& part = set.parts[p];
    const index::DatasetIndex& index = part.index;
    const int64_t last = index.chunk_count() - 1;
    if (CopiedChunks(index) == index.chunk_count()) continue;
    decoded.resize(static_cast<size_t>(sources[p]->chunk_bytes()));
    sources[p]->Read(last, decoded);  // its checksum checked
    const int64_t rows = index.samples_in_chunk(last);
    pending.insert(pending.end(), decoded.begin(),
                   decoded.begin() + static_cast<std::ptrdiff_t>(rows * image_bytes));
    pending_rows += rows;
    const int64_t first = index.first_row_of_chunk(last);
    for (int64_t row = first; row < first + rows; ++row) {
      if (index.labelled) description.labels.push_back(index.labels[static_cast<size_t>(row)]);
      description.sources.push_back(std::move(part.sources[static_cast<size_t>(row)]));
    }
    merged.AppendFields(part, first, rows);  // ahead of their images: the Writer allows it
    while (pending_rows >= k) emit(k);
  }
  if (pending_rows > 0) emit(pending_rows);
}

}  // namespace

MergeReport MergeParts(const std::vector<std::string>& parts, const std::string& path,
                       const MergeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (const std::string problem = OutputProblem(path, parts); !problem.empty()) {
    throw Error(ErrorCode::kInvalidArgument, problem);
  }
  PartSet set = OpenParts(parts);
  const std::vector<std::unique_ptr<source::ChunkSource>> sources = OpenSources(set);
  std::vector<int64_t> copied;
  int64_t short_rows = 0;  // of version 1 parts' short last chunks
  for (const PartFile& part : set.parts) {
    copied.push_back(CopiedChunks(part.index));
    short_rows += part.index.samples - part.index.first_row_of_chunk(copied.back());
  }
  const std::vector<int32_t> owners = Interleaving(copied, options.seed);
  const int64_t k = std::max<int64_t>(set.writer.chunk_images, 1);
  const int64_t chunks_total = static_cast<int64_t>(owners.size()) + (short_rows + k - 1) / k;

  WriterOptions writer_options = set.writer;
  writer_options.overwrite = options.overwrite;
  writer_options.option_names = options.option_names;
  Writer writer = Writer::Create(path, writer_options);
  DatasetDescription description = set.description;
  MergeReport report;
  MergedFile merged(writer, description, report, options, chunks_total);
  std::vector<int64_t> next(set.parts.size(), 0);  // each part's next chunk
  for (int32_t owner : owners) {
    const auto k_owner = static_cast<size_t>(owner);
    merged.Copy(set.parts[k_owner], *sources[k_owner], next[k_owner]++);
  }
  RepackShortChunks(set, sources, merged, description);
  StopIfCancelled(options, writer);
  for (PartFile& part : set.parts) {
    for (SkippedSource& skipped : part.skipped) description.skipped.push_back(std::move(skipped));
  }
  description.merged = MergeRecord{static_cast<int64_t>(set.parts.size()), options.seed};
  writer.Finish(description);

  report.path = path;
  report.parts = static_cast<int64_t>(set.parts.size());
  report.images = writer.images_written();
  report.chunks = writer.chunks_written();
  report.skipped = static_cast<int64_t>(description.skipped.size());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace h5feed::converters
