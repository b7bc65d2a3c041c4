#include "flat_chunk_packer.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "byte_size.h"
#include "field_value_rows.h"
#include "h5feed/error.h"
#include "image/jpeg_encoder.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// Whether an image of `raw_bytes` pixel bytes is stored as JPEG.
bool StoredAsJpeg(const FlatLayout& layout, int64_t raw_bytes) {
  switch (layout.encoding.kind) {
    case StoredEncoding::Kind::kRaw: return false;
    case StoredEncoding::Kind::kJpeg: return true;
    case StoredEncoding::Kind::kSmart: return raw_bytes > layout.smart_threshold;
  }
  return false;
}

// Room for a sample of any shape: in the group's samples when it is stored raw, else in the
// group's scratch, to be JPEG-encoded. Its record gets the shape and the encoding.
class Place final : public SampleDestination {
 public:
  Place(const FlatLayout& layout, SampleGroup& group, StoredImage& record)
      : layout_(layout), group_(group), record_(record) {}

 private:
  std::span<uint8_t> Provide(const ImageShape& shape) override {
    record_.height = static_cast<int32_t>(shape.height);
    record_.width = static_cast<int32_t>(shape.width);
    record_.channels = static_cast<int32_t>(shape.channels);
    const size_t bytes = static_cast<size_t>(shape.bytes());
    if (StoredAsJpeg(layout_, shape.bytes())) {
      record_.encoding = ImageEncoding::kJpeg;
      group_.pixels.resize(bytes);
      return group_.pixels;
    }
    record_.encoding = ImageEncoding::kRaw;
    return group_.samples.Take(bytes);
  }

  const FlatLayout& layout_;
  SampleGroup& group_;
  StoredImage& record_;
};

class FlatChunkPacker final : public ChunkPacker {
 public:
  FlatChunkPacker(const SampleSource& source, const ConvertOptions& options)
      : largest_(source.shape()) {
    const auto name = [&options](std::string_view field) {
      return NameOption(options.option_names, "ConvertOptions", field);
    };
    if (options.chunk_images > 0) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} {} counts images per chunk, but these images are stored at their own "
                      "sizes, in chunks of whole images of a number of bytes: give {} instead "
                      "(default 4M)",
                      name("chunk_images"), options.chunk_images, name("chunk_bytes"));
    }
    if (options.smart_threshold < 0) {
      throw MakeError(ErrorCode::kInvalidArgument, "{} must be 0 or more bytes, got {}",
                      name("smart_threshold"), options.smart_threshold);
    }
    // The largest image that may be stored: the largest the source may decode (its headers'
    // sizes, capped), raw, or the worst JPEG file of the cap's square.
    const int64_t raw_bound = largest_.bytes();
    const int64_t side =
        source.max_side() > 0 ? source.max_side() : std::max(largest_.height, largest_.width);
    const int64_t jpeg_bound = image::MaxJpegBytes(side, side, 3);
    int64_t image_bound = raw_bound;
    switch (options.encoding.kind) {
      case StoredEncoding::Kind::kRaw: break;
      case StoredEncoding::Kind::kJpeg:
        image_bound = jpeg_bound;
        plan_.scratch_bytes = raw_bound + jpeg_bound;  // pixels before encoding, the JPEG file
        break;
      case StoredEncoding::Kind::kSmart:
        image_bound = std::max(std::min(raw_bound, options.smart_threshold), jpeg_bound);
        plan_.scratch_bytes = raw_bound + jpeg_bound;
        break;
    }
    const int64_t asked = options.chunk_bytes > 0 ? options.chunk_bytes : kDefaultChunkBytes;
    const int64_t c = std::max(asked, image_bound);
    if (c >= kMaxChunkBytes) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "a chunk must hold the largest image that may be stored ({}), and HDF5 "
                      "cannot store chunks of 4 GiB or more; lower {} or {}",
                      ByteSize(image_bound), name("max_side"), name("chunk_bytes"));
    }
    value_bytes_ = FieldValueBytes(source.fields(), options.value_bytes);
    plan_.samples = std::min(std::max<int64_t>(1, c / std::max<int64_t>(1, image_bound)),
                             SamplesWithinChunk(value_bytes_, c));
    plan_.chunk_bytes = c;
    plan_.chunk_option = "chunk_bytes";
    layout_.chunk_bytes = c;
    layout_.max_side = source.max_side();
    layout_.encoding = options.encoding;
    layout_.smart_threshold = options.smart_threshold;
  }

  const GroupPlan& plan() const override { return plan_; }

  void SetLayout(WriterOptions& options) const override { options.flat = layout_; }

  SampleInfo Read(const SampleSource& source, int64_t row, SampleGroup& group,
                  int64_t j) const override {
    StoredImage& record = group.stored[static_cast<size_t>(j)];
    const size_t begin = group.samples.size();
    Place place(layout_, group, record);
    SampleInfo info = source.Read(row, place);
    RequireAsked(place, source, row);
    if (record.encoding == ImageEncoding::kJpeg) {
      image::EncodeJpeg(group.pixels, record.height, record.width, record.channels,
                        layout_.encoding.quality, group.jpeg);
      std::memcpy(group.samples.Take(group.jpeg.size()).data(), group.jpeg.data(),
                  group.jpeg.size());
    }
    record.bytes = group.samples.size() - begin;
    return info;
  }

  // A group's stored bytes fit in C, so packing one completes at most one chunk. A chunk also
  // ends where its samples' field values would pass C (field_value_rows.h): a group holds about
  // C of them, as value_bytes_ expects, so that end comes once a group too; values larger than
  // expected may end it no more than once, and then make the chunk hold more.
  void Pack(SampleGroup& group) override {
    group.chunk.Clear();
    const size_t c = static_cast<size_t>(plan_.chunk_bytes);
    size_t offset = 0;
    for (int64_t j = 0; j < group.count; ++j) {
      if (!group.ok[static_cast<size_t>(j)]) continue;
      const StoredImage& image = group.stored[static_cast<size_t>(j)];
      SampleInfo& info = group.infos[static_cast<size_t>(j)];
      size_t values = 0;
      for (const std::vector<uint8_t>& value : info.fields) values += value.size();
      const bool images_full = partial_.bytes.size() + image.bytes > c;
      const bool values_full = !partial_.empty() && partial_values_ + values > c;
      if (images_full || (values_full && group.chunk.empty())) {
        if (!group.chunk.empty()) {
          throw Error(ErrorCode::kInternal, "a group of samples completed two chunks");
        }
        partial_.HandTo(group.chunk, c);
        partial_values_ = 0;
      }
      partial_.Append(group.samples.bytes(offset, image.bytes), image, info);
      partial_values_ += values;
      offset += image.bytes;
    }
  }

  bool Flush(SampleGroup& group) override {
    group.chunk.Clear();
    if (!partial_.empty()) partial_.HandTo(group.chunk, 0);
    partial_values_ = 0;
    return false;  // C was raised to the largest image that may be stored: it stands
  }

  void Encode(const Writer& writer, SampleGroup& group) const override {
    writer.EncodePackedInto(group.chunk.bytes, group.chunk.images, group.encoded);
  }

  void Report(const WrittenChunks& written, ConvertReport& report) const override {
    report.shape = largest_;
    report.own_size = true;
    report.chunk_bytes = layout_.chunk_bytes;
    report.max_side = layout_.max_side;
    report.encoding = layout_.encoding;
    report.smart_threshold = layout_.smart_threshold;
    report.raw_bytes = written.raw_bytes;
    report.payload_bytes = written.payload_bytes;
    report.encodings = written.encodings;
  }

 private:
  ImageShape largest_;  // the largest image the source may deliver
  FlatLayout layout_;
  GroupPlan plan_;
  PackedChunk partial_;        // whole images, at most C bytes
  int64_t value_bytes_ = 0;    // a sample's field values, as expected (field_value_rows.h)
  size_t partial_values_ = 0;  // the bytes of partial_'s field values
};

}  // namespace

std::unique_ptr<ChunkPacker> MakeFlatChunkPacker(const SampleSource& source,
                                                 const ConvertOptions& options) {
  return std::make_unique<FlatChunkPacker>(source, options);
}

}  // namespace h5feed::converters
