#include "fixed_chunk_packer.h"

#include <algorithm>

#include "field_value_rows.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// The group's room for a sample of the file's one shape. A source of one shape asks for it
// every time; another shape is a bug of the source, which would shift every later image.
class Slot final : public SampleDestination {
 public:
  Slot(SampleBytes& samples, const ImageShape& shape, const SampleSource& source, int64_t row)
      : samples_(samples), shape_(shape), source_(source), row_(row) {}

 private:
  std::span<uint8_t> Provide(const ImageShape& asked) override {
    if (asked != shape_) {
      throw MakeError(ErrorCode::kInternal,
                      "{} of a {} source is {}x{}x{}, but the source stores every sample at "
                      "{}x{}x{} (its shape()): a source whose samples differ in shape must say "
                      "so with own_size()",
                      source_.name(row_), source_.kind(), asked.height, asked.width, asked.channels,
                      shape_.height, shape_.width, shape_.channels);
    }
    return samples_.Take(static_cast<size_t>(shape_.bytes()));
  }

  SampleBytes& samples_;
  const ImageShape& shape_;
  const SampleSource& source_;
  int64_t row_;
};

class FixedChunkPacker final : public ChunkPacker {
 public:
  FixedChunkPacker(const SampleSource& source, const ConvertOptions& options)
      : shape_(source.shape()) {
    const int64_t n = source.count();
    const int64_t image_bytes = shape_.bytes();
    // A chunk never holds more images than the input has (a K past them would only be padding,
    // and buffers of its size).
    k_ = std::min(options.chunk_images, std::max<int64_t>(n, 1));
    // Only a K of the converter's choosing, for the whole dataset, follows what is stored.
    k_follows_stored_ = k_ == 0 && options.part.whole();
    if (k_ == 0) {
      k_ = options.chunk_bytes > 0
               ? std::clamp<int64_t>((options.chunk_bytes + image_bytes / 2) / image_bytes, 1, n)
               : DefaultChunkImages(shape_, n);
      // No more samples than C bytes of their field values hold (field_value_rows.h).
      const int64_t c = options.chunk_bytes > 0 ? options.chunk_bytes : kDefaultChunkBytes;
      k_ = std::min(k_, SamplesWithinChunk(FieldValueBytes(source.fields(), options.value_bytes),
                                           std::max(c, image_bytes)));
    }
    image_.height = static_cast<int32_t>(shape_.height);
    image_.width = static_cast<int32_t>(shape_.width);
    image_.channels = static_cast<int32_t>(shape_.channels);
    image_.bytes = static_cast<uint64_t>(image_bytes);
    plan_.samples = k_;
    plan_.chunk_bytes = k_ * image_bytes;
    plan_.chunk_option = "chunk_images";
  }

  const GroupPlan& plan() const override { return plan_; }

  void SetLayout(WriterOptions& options) const override {
    options.image_shape = shape_;
    options.chunk_images = k_;
  }

  SampleInfo Read(const SampleSource& source, int64_t row, SampleGroup& group,
                  int64_t j) const override {
    Slot slot(group.samples, shape_, source, row);
    SampleInfo info = source.Read(row, slot);
    RequireAsked(slot, source, row);
    group.stored[static_cast<size_t>(j)] = image_;
    return info;
  }

  // A group holds K samples and the partial chunk fewer than K, so packing one group completes
  // at most one chunk.
  void Pack(SampleGroup& group) override {
    group.chunk.Clear();
    const bool all_ok =
        std::all_of(group.ok.begin(), group.ok.begin() + group.count, [](char c) { return c; });
    if (partial_.empty() && all_ok && group.count == k_) {
      // The common case: a whole group read cleanly is a chunk as it stands, no copy.
      group.samples.SwapInto(group.chunk.bytes);
      for (SampleInfo& info : group.infos) group.chunk.Add(image_, info);
      handed_ = true;
      return;
    }
    size_t offset = 0;
    for (int64_t j = 0; j < group.count; ++j) {
      if (!group.ok[static_cast<size_t>(j)]) continue;
      partial_.Append(group.samples.bytes(offset, image_.bytes), image_,
                      group.infos[static_cast<size_t>(j)]);
      offset += image_.bytes;
      if (static_cast<int64_t>(partial_.images.size()) == k_) {
        partial_.HandTo(group.chunk, static_cast<size_t>(plan_.chunk_bytes));
        handed_ = true;
      }
    }
  }

  bool Flush(SampleGroup& group) override {
    group.chunk.Clear();
    if (partial_.empty()) return false;
    // The file's only chunk: with broken inputs skipped it holds fewer than the K counted
    // from the inputs, and a chunk of K would only add padding, on disk and in every reader.
    const auto stored = static_cast<int64_t>(partial_.images.size());
    const bool resized = !handed_ && k_follows_stored_ && stored < k_;
    if (resized) k_ = stored;
    partial_.HandTo(group.chunk, 0);
    handed_ = true;
    return resized;
  }

  void Encode(const Writer& writer, SampleGroup& group) const override {
    writer.EncodeInto(group.chunk.bytes, static_cast<int64_t>(group.chunk.images.size()),
                      group.encoded);
  }

  void Report(const WrittenChunks& written, ConvertReport& report) const override {
    report.shape = shape_;
    report.chunk_images = k_;
    report.raw_bytes = written.raw_bytes;
  }

 private:
  ImageShape shape_;
  StoredImage image_;  // every image's record: the one shape, raw
  int64_t k_ = 0;
  bool k_follows_stored_ = false;  // K was counted from the inputs, for the whole dataset
  bool handed_ = false;            // a chunk was handed on: the file's layout is fixed
  GroupPlan plan_;
  PackedChunk partial_;  // fewer than K images
};

}  // namespace

std::unique_ptr<ChunkPacker> MakeFixedChunkPacker(const SampleSource& source,
                                                  const ConvertOptions& options) {
  if (options.encoding.kind != StoredEncoding::Kind::kRaw) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "encoding {} stores images at their own size, which a {} source does not offer",
                    options.encoding.ToString(), source.kind());
  }
  return std::make_unique<FixedChunkPacker>(source, options);
}

}  // namespace h5feed::converters
