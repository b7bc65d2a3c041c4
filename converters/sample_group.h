#pragma once
// The token of a conversion's pipeline (conversion.cc): a group of consecutive samples of the
// stored order, as read, and the chunk (if any) that packing them completed. Tokens are recycled
// through a pool, so their buffers are allocated once per token rather than once per chunk.
//
// Thread-safety: a group is used by one filter of the pipeline at a time.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "convert_options.h"
#include "h5feed/field.h"
#include "h5feed/skipped_source.h"
#include "h5feed/writer.h"
#include "sample_source.h"

namespace h5feed::converters {

// The stored bytes of a group's samples, one after another, in memory kept from one group to
// the next. Room for a sample is taken before the source writes it, and is not zeroed first as
// std::vector::resize would: the source writes every byte of it.
class SampleBytes {
 public:
  // Empties it, keeping room for `capacity` bytes.
  void Clear(size_t capacity) {
    if (memory_.size() < capacity) memory_.resize(capacity);
    size_ = 0;
  }

  // Room for `bytes` more after the last, growing the memory when it is short.
  std::span<uint8_t> Take(size_t bytes) {
    if (size_ + bytes > memory_.size()) memory_.resize(size_ + bytes);
    const std::span<uint8_t> room(memory_.data() + size_, bytes);
    size_ += bytes;
    return room;
  }

  // Forgets what follows the first `size` bytes: the room of a sample that failed.
  void Truncate(size_t size) { size_ = std::min(size_, size); }

  size_t size() const { return size_; }
  std::span<const uint8_t> bytes(size_t offset, size_t count) const {
    return {memory_.data() + offset, count};
  }

  // Hands its bytes over as `into` (exactly size() bytes, not copied), keeping into's memory for
  // the next group.
  void SwapInto(std::vector<uint8_t>& into) {
    memory_.resize(size_);
    std::swap(memory_, into);
    size_ = 0;
  }

 private:
  std::vector<uint8_t> memory_;  // [0, size_) holds samples; the rest is room
  size_t size_ = 0;
};

// A chunk as packing assembles it: whole images from its first byte, in stored order, and for
// each how it is stored, its label, where it came from and its value of every field. The
// values travel with their images, so a skipped sample's go with it and the rows of the
// fields stay those of the images.
struct PackedChunk {
  std::vector<uint8_t> bytes;
  std::vector<StoredImage> images;
  std::vector<int64_t> labels;
  std::vector<std::string> sources;
  // One column per field of the source (SampleSource::fields()), a row per image; empty
  // without fields.
  std::vector<FieldColumn> fields;

  bool empty() const { return images.empty(); }

  // Empties it, keeping its memory.
  void Clear() {
    bytes.clear();
    images.clear();
    labels.clear();
    sources.clear();
    for (FieldColumn& column : fields) column.Clear();
  }

  // Records one more image whose bytes are already in `bytes`; its source is moved from
  // `info`, its field values copied into the columns (info.fields holds one per field: the
  // pipeline checked them as they were read).
  void Add(const StoredImage& image, SampleInfo& info) {
    images.push_back(image);
    labels.push_back(info.label);
    sources.push_back(std::move(info.source));
    if (fields.size() < info.fields.size()) fields.resize(info.fields.size());
    for (size_t f = 0; f < info.fields.size(); ++f) fields[f].Append(info.fields[f]);
  }

  // Appends one image: its stored bytes, and its record as Add does.
  void Append(std::span<const uint8_t> stored, const StoredImage& image, SampleInfo& info) {
    bytes.insert(bytes.end(), stored.begin(), stored.end());
    Add(image, info);
  }

  // Gives everything to `to`, which must be empty, and takes its memory in return, with room
  // for `capacity` bytes: the next chunk is assembled without reallocating.
  void HandTo(PackedChunk& to, size_t capacity) {
    std::swap(*this, to);
    Clear();
    bytes.reserve(capacity);
  }
};

struct SampleGroup {
  int64_t first = 0;  // position of its first sample in the stored order
  int64_t count = 0;  // samples in the group; 0 for the final token, which flushes the packer

  // Reading (in parallel): the readable samples' stored bytes, in order, and per sample how it
  // is stored (where ok), what it is, and whether it could be read.
  SampleBytes samples;
  std::vector<StoredImage> stored;
  std::vector<SampleInfo> infos;
  std::vector<char> ok;
  std::vector<SkippedSource> skipped;
  // A packer's scratch while it stores one sample: the flat layout's pixels before they are
  // JPEG-encoded, and the JPEG file.
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> jpeg;

  // Packing (serial, in stored order): the chunk this group completed, if any; then encoding
  // it (in parallel).
  PackedChunk chunk;
  EncodedChunk encoded;
  ConvertProgress progress;  // as of this group, reported when its chunk is written

  // Makes it ready to read its `count` samples into room for `capacity` bytes.
  void StartReading(size_t capacity) {
    const size_t n = static_cast<size_t>(count);
    samples.Clear(capacity);
    stored.assign(n, StoredImage{});
    infos.assign(n, SampleInfo{});
    ok.assign(n, 0);
    skipped.clear();
  }
};

}  // namespace h5feed::converters
