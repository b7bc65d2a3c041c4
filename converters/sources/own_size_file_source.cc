#include "sources/own_size_file_source.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

#include "decode/decoder_table.h"
#include "decode/image_decoder.h"
#include "format/box_classes_table.h"
#include "format/schema.h"
#include "format/skipped_lists.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "index/dataset_index.h"
#include "index/field_values.h"
#include "make_error.h"
#include "source/open_chunk_source.h"

namespace h5feed::converters {
namespace {

// Which source's chunk a thread holds: a number never reused, unlike a source's address.
std::atomic<uint64_t> next_source_id{1};

// One thread's decoded chunk and decoders' scratch, kept between reads of any source.
struct ThreadScratch {
  uint64_t source = 0;
  int64_t chunk = -1;
  std::vector<uint8_t> bytes;
  decode::DecodeScratch decode;
};

ThreadScratch& Scratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

// The input's own /sources, so that a file rechunked still names where each image came from;
// empty when it has none of one name an image.
std::vector<std::string> ReadSources(const index::DatasetIndex& index) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(index.location, index.file_locking);
  if (!hdf5::LinkExists(opened.file.get(), format::schema::kSources)) return {};
  std::vector<std::string> sources =
      hdf5::ReadStringDataset(opened.file.get(), format::schema::kSources);
  if (static_cast<int64_t>(sources.size()) != index.samples) return {};
  return sources;
}

class OwnSizeFileSource final : public SampleSource {
 public:
  explicit OwnSizeFileSource(index::DatasetIndex index)
      : index_(std::move(index)),
        chunks_(source::OpenChunkSource(index_, source::ChunkSourceOptions{})),
        id_(next_source_id.fetch_add(1)),
        box_classes_(format::ReadBoxClasses(index_.location, index_.file_locking)),
        sources_(ReadSources(index_)),
        skipped_earlier_(format::ReadSkippedLists(index_.location, index_.file_locking)) {
    // Read whole and checked once: a sample's values are then copied out of memory.
    for (const FieldSpec& spec : index_.fields) {
      columns_.push_back(
          index::ReadFieldColumn(index_, spec.name, std::numeric_limits<uint64_t>::max()));
    }
  }

  std::string_view kind() const override { return "h5feed"; }
  int64_t count() const override { return index_.samples; }
  ImageShape shape() const override { return index_.shape; }
  std::vector<std::string> classes() const override { return index_.classes; }
  BoxClasses box_classes() const override { return box_classes_; }
  // An h5feed file's boxes: pixels by its format (docs/format.md), checked when it was written.
  BoxCoordinates box_coordinates() const override { return BoxCoordinates::kPixels; }
  std::vector<FieldSpec> fields() const override { return index_.fields; }
  bool labelled() const override { return index_.labelled; }
  bool own_size() const override { return true; }
  int64_t max_side() const override { return 0; }  // sizes kept: the header says why
  bool prefers_sequential_reads() const override { return true; }
  std::vector<SkippedSource> skipped_earlier() const override { return skipped_earlier_; }
  std::string name(int64_t i) const override {
    if (i >= 0 && i < static_cast<int64_t>(sources_.size()))
      return sources_[static_cast<size_t>(i)];
    return "images[" + std::to_string(i) + "]";
  }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    if (i < 0 || i >= index_.samples) {
      throw MakeError(ErrorCode::kInvalidArgument, "{}: image {} is out of range [0, {})",
                      index_.path, i, index_.samples);
    }
    ThreadScratch& scratch = Scratch();
    const int64_t chunk = index_.chunk_rows().chunk_of(i);
    if (scratch.source != id_ || scratch.chunk != chunk) {
      scratch.chunk = -1;  // stays unset if the read throws
      scratch.bytes.resize(static_cast<size_t>(chunks_->chunk_bytes()));
      chunks_->Read(chunk, scratch.bytes);
      scratch.source = id_;
      scratch.chunk = chunk;
    }
    const StoredRow image = index_.rows.at(i);
    const std::span<const uint8_t> stored(scratch.bytes.data() + image.offset, image.bytes);
    const ImageShape shape = image.shape;
    // Decoded whole at full size: the region is the image (its pixels in place when raw).
    const uint8_t* pixels = nullptr;
    try {
      pixels = decode::DecoderFor(image.encoding)
                   .Decode(stored, shape, decode::CropNeeds::Whole(shape), scratch.decode)
                   .pixels;
    } catch (const Error& e) {
      throw e.Reworded(fmt::format("{} of {} ({}): {}", name(i), index_.path,
                                   chunks_->Describe(chunk), e.what()));
    }
    std::memcpy(dest.MemoryFor(shape).data(), pixels, static_cast<size_t>(shape.bytes()));
    SampleInfo info;
    info.label = index_.labelled ? index_.labels[static_cast<size_t>(i)] : 0;
    info.source = name(i);
    for (const FieldColumn& column : columns_) {
      const std::span<const uint8_t> value = column.row(i);
      info.fields.emplace_back(value.begin(), value.end());
    }
    return info;
  }

 private:
  index::DatasetIndex index_;
  std::unique_ptr<source::ChunkSource> chunks_;  // borrows index_
  uint64_t id_;
  std::vector<FieldColumn> columns_;            // each field's values, index_.fields' order
  BoxClasses box_classes_;                      // the file's box classes' table, if any
  std::vector<std::string> sources_;            // the file's /sources, or none
  std::vector<SkippedSource> skipped_earlier_;  // the file's skipped lists
};

}  // namespace

std::unique_ptr<SampleSource> OpenOwnSizeFile(const std::string& path) {
  index::DatasetIndex index = index::OpenDatasetIndex(path, index::IndexOptions{});
  if (index.stored_layout != StoredLayout::kFlat) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} stores its images at one size ({}x{}): it is not a file of images at their own size "
        "(format version 2)",
        path, index.shape.height, index.shape.width);
  }
  return std::make_unique<OwnSizeFileSource>(std::move(index));
}

}  // namespace h5feed::converters
