// StreamedFields (streamed_fields.h).

#include "loader/streamed_fields.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "index/field_chunk_index.h"
#include "index/field_values.h"
#include "io/resource_limits.h"
#include "loader/loader_file.h"
#include "source/open_chunk_source.h"

namespace h5feed::loader {

struct StreamedFields::Field {
  FieldSpec spec;
  index::DatasetIndex index;  // the field's own chunks, read by `source`, which borrows it
  std::unique_ptr<source::ChunkSource> source;
  source::ReadAhead* ahead = nullptr;  // source's read-ahead this run, or null
  size_t offset = 0;                   // in a companion
  size_t bytes = 0;                    // of a companion: the most rows a chunk of images holds
  std::string where;                   // "field NAME in PATH"
};

namespace {

// The bytes a loader holds of field `spec` held whole: the values of an array; a bytes or text
// field's are unknown before its rows are read, and are counted as none here (its read refuses
// it when it does not fit).
uint64_t HeldBytes(const FieldSpec& spec, int64_t rows) {
  if (spec.kind != FieldKind::kArray) return 0;
  return index::FieldColumnBytes(
      rows, static_cast<uint64_t>(spec.row_bytes()) * static_cast<uint64_t>(rows));
}

// How a streamed field's chunks (of `chunk_bytes`) are read: as the images' are
// (LoaderSourceOptions), but copied into the cache's companion rather than mapped, with as many
// bytes read ahead as the field's `companion_bytes` beside an image chunk claim of the images'
// share (two of its chunks at least).
source::ChunkSourceOptions FieldSourceOptions(const LoaderOptions& options,
                                              const index::DatasetIndex& images,
                                              int64_t chunk_bytes, int64_t companion_bytes) {
  source::ChunkSourceOptions field = LoaderSourceOptions(options);
  field.map_file = false;
  const double share = static_cast<double>(companion_bytes) /
                       static_cast<double>(std::max<int64_t>(images.chunk_bytes(), 1));
  field.fetch_ahead_bytes =
      std::max(static_cast<uint64_t>(static_cast<double>(field.fetch_ahead_bytes) * share),
               2 * static_cast<uint64_t>(chunk_bytes));
  return field;
}

// The chunks of `chunk_rows` rows that hold rows [first, first + rows): [begin, end).
std::pair<int64_t, int64_t> ChunksHolding(int64_t chunk_rows, int64_t first, int64_t rows) {
  if (rows <= 0) return {0, 0};
  return {first / chunk_rows, (first + rows - 1) / chunk_rows + 1};
}

}  // namespace

uint64_t HeldFieldLimit(const LoaderOptions& options) {
  return options.held_field_bytes > 0 ? static_cast<uint64_t>(options.held_field_bytes)
                                      : io::limits::PhysicalMemoryBytes() / 4;
}

StreamedFields::StreamedFields(const index::DatasetIndex& dataset, source::ChunkSource& images,
                               const std::vector<FieldSpec>& asked, const LoaderOptions& options)
    : images_(dataset), images_source_(images), verify_(options.verify_checksums) {
  uint64_t held = 0;
  for (const FieldSpec& spec : asked) held += HeldBytes(spec, dataset.samples);
  const uint64_t limit = HeldFieldLimit(options);
  if (held <= limit) return;
  // The largest first: the fewest fields streamed for the rest to fit.
  std::vector<const FieldSpec*> by_size;
  for (const FieldSpec& spec : asked) by_size.push_back(&spec);
  std::stable_sort(by_size.begin(), by_size.end(), [](const FieldSpec* a, const FieldSpec* b) {
    return a->row_bytes() > b->row_bytes();
  });
  for (const FieldSpec* spec : by_size) {
    if (held <= limit) break;
    std::optional<index::DatasetIndex> chunks = index::FieldChunkIndex(dataset, *spec);
    if (!chunks) continue;
    auto field = std::make_unique<Field>();
    field->spec = *spec;
    field->index = std::move(*chunks);
    field->offset = static_cast<size_t>(companion_bytes_);
    field->bytes = static_cast<size_t>(dataset.chunk_samples * spec->row_bytes());
    field->source = source::OpenChunkSource(
        field->index, FieldSourceOptions(options, dataset, field->index.chunk_bytes(),
                                         static_cast<int64_t>(field->bytes)));
    field->where = "field " + spec->name + " in " + dataset.path;
    companion_bytes_ += static_cast<int64_t>(field->bytes);
    held -= HeldBytes(*spec, dataset.samples);
    fields_.push_back(std::move(field));
  }
}

StreamedFields::~StreamedFields() = default;

std::vector<std::string> StreamedFields::names() const {
  std::vector<std::string> names;
  for (const auto& field : fields_) names.push_back(field->spec.name);
  return names;
}

const StreamedFields::Field* StreamedFields::Find(std::string_view name) const {
  for (const auto& field : fields_) {
    if (field->spec.name == name) return field.get();
  }
  return nullptr;
}

size_t StreamedFields::OffsetOf(std::string_view name) const {
  const Field* field = Find(name);
  if (field == nullptr) {
    throw Error(ErrorCode::kInternal, "streamed fields: " + std::string(name) + " is not streamed");
  }
  return field->offset;
}

cache::LoadResult StreamedFields::Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) const {
  cache::LoadResult result = images_source_.Load(chunk, target);
  if (fields_.empty()) return result;
  auto block = std::make_shared_for_overwrite<uint8_t[]>(static_cast<size_t>(companion_bytes_));
  const std::span<uint8_t> bytes(block.get(), static_cast<size_t>(companion_bytes_));
  const int64_t first = images_.first_row_of_chunk(chunk);
  const int64_t rows = images_.samples_in_chunk(chunk);
  for (const auto& field : fields_) {
    const std::span<uint8_t> values = bytes.subspan(field->offset, field->bytes);
    const index::ChunkReadStats read = ReadRows(*field, first, rows, values);
    result.bytes_read += read.bytes_read;
    result.bytes_decoded += read.bytes_decoded;
    if (!verify_) continue;
    const auto row_bytes = static_cast<size_t>(field->spec.row_bytes());
    for (int64_t j = 0; j < rows; ++j) {
      index::CheckFieldRow(values.subspan(static_cast<size_t>(j) * row_bytes, row_bytes),
                           field->index.row_checksums[static_cast<size_t>(first + j)], field->spec,
                           first + j, chunk, field->where);
    }
  }
  target.Attach(bytes, std::shared_ptr<const void>(std::move(block)));
  return result;
}

std::pair<int64_t, int64_t> StreamedFields::FieldChunksOf(const Field& field, int64_t chunk) const {
  return ChunksHolding(field.index.chunk_samples, images_.first_row_of_chunk(chunk),
                       images_.samples_in_chunk(chunk));
}

void StreamedFields::StopLoadsOn(std::stop_token stop) {
  images_source_.StopLoadsOn(stop);
  for (const auto& field : fields_) field->source->StopLoadsOn(stop);
}

source::ReadAhead* StreamedFields::read_ahead() {
  images_ahead_ = images_source_.read_ahead();
  bool fields_ahead = false;
  for (const auto& field : fields_) {
    field->ahead = field->source->read_ahead();
    fields_ahead = fields_ahead || field->ahead != nullptr;
  }
  return fields_ahead ? this : images_ahead_;
}

io::Ahead StreamedFields::Fetch(int64_t chunk) {
  // kStarted when anything started, else kHeld when anything is held; kFull at the first
  // source that holds enough (the walker asks for this chunk again, and what started is held).
  io::Ahead result = io::Ahead::kNotNeeded;
  const auto add = [&result](io::Ahead ahead) {
    if (ahead == io::Ahead::kStarted || result == io::Ahead::kNotNeeded) result = ahead;
  };
  if (images_ahead_) {
    const io::Ahead ahead = images_ahead_->Fetch(chunk);
    if (ahead == io::Ahead::kFull) return ahead;
    add(ahead);
  }
  for (const auto& field : fields_) {
    if (!field->ahead) continue;
    const auto [begin, end] = FieldChunksOf(*field, chunk);
    for (int64_t c = begin; c < end; ++c) {
      const io::Ahead ahead = field->ahead->Fetch(c);
      if (ahead == io::Ahead::kFull) return ahead;
      add(ahead);
    }
  }
  return result;
}

void StreamedFields::Drop(int64_t chunk) {
  if (images_ahead_) images_ahead_->Drop(chunk);
  for (const auto& field : fields_) {
    if (!field->ahead) continue;
    const auto [begin, end] = FieldChunksOf(*field, chunk);
    for (int64_t c = begin; c < end; ++c) field->ahead->Drop(c);
  }
}

void StreamedFields::DropAll() {
  if (images_ahead_) images_ahead_->DropAll();
  for (const auto& field : fields_) {
    if (field->ahead) field->ahead->DropAll();
  }
}

index::ChunkReadStats StreamedFields::ReadRows(const Field& field, int64_t first, int64_t rows,
                                               std::span<uint8_t> values) {
  const int64_t chunk_rows = field.index.chunk_samples;
  const auto [begin, end] = ChunksHolding(chunk_rows, first, rows);
  // In step with the images (a file of one image size): the field's chunk is the rows, read
  // where they go.
  if (first % chunk_rows == 0 && end == begin + 1 &&
      static_cast<size_t>(field.source->chunk_bytes()) <= values.size()) {
    return field.source->Read(begin, values);
  }
  // Else each of the field's chunks that holds some of the rows, decoded whole, and those rows
  // copied out of it.
  thread_local std::vector<uint8_t> decoded;
  decoded.resize(static_cast<size_t>(field.source->chunk_bytes()));
  const auto row_bytes = static_cast<size_t>(field.spec.row_bytes());
  index::ChunkReadStats total;
  for (int64_t c = begin; c < end; ++c) {
    const index::ChunkReadStats read = field.source->Read(c, decoded);
    total.bytes_read += read.bytes_read;
    total.bytes_decoded += read.bytes_decoded;
    const int64_t from = std::max(first, c * chunk_rows);
    const int64_t to = std::min(first + rows, (c + 1) * chunk_rows);
    std::memcpy(values.data() + static_cast<size_t>(from - first) * row_bytes,
                decoded.data() + static_cast<size_t>(from - c * chunk_rows) * row_bytes,
                static_cast<size_t>(to - from) * row_bytes);
  }
  return total;
}

}  // namespace h5feed::loader
