#include "own_size_conversion.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <tbb/concurrent_queue.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "byte_size.h"
#include "chunk_buffer_reservation.h"
#include "conversion_ending.h"
#include "h5feed/error.h"
#include "image/jpeg_encoder.h"
#include "make_error.h"

namespace h5feed {
namespace {

// One token of the pipeline: a group of consecutive samples of the stored order, their stored
// bytes, and the chunk (if any) that packing them completed. Recycled through a pool.
struct StoredGroup {
  int64_t first = 0;                 // position of its first sample in the stored order
  int64_t count = 0;                 // samples in the group; 0 for the final flush token
  std::vector<uint8_t> stored;       // the readable samples' stored bytes, one after another
  std::vector<StoredImage> records;  // per sample; meaningful where ok
  std::vector<SampleInfo> infos;
  std::vector<char> ok;
  std::vector<SkippedSource> skipped;
  std::vector<uint8_t> pixels;  // a sample's pixels before JPEG encoding
  std::vector<uint8_t> jpeg;    // its JPEG file

  std::vector<uint8_t> chunk;  // a completed chunk: whole images from its first byte
  std::vector<StoredImage> chunk_images;
  std::vector<int64_t> labels;
  std::vector<std::string> sources;
  EncodedChunk encoded;
  ConvertProgress progress;  // as of this group, reported when its chunk is written
};

// Packs the readable samples of consecutive groups, in order, into chunks of C bytes: an image
// goes into the current chunk if it fits, else the chunk is complete and a new one starts with
// it. Serial: called in stored order from one thread.
class FlatPacker {
 public:
  explicit FlatPacker(int64_t chunk_bytes) : c_(chunk_bytes) {}

  // A group's images fit in C together, so packing one completes at most one chunk: it is
  // handed to the group.
  void Pack(StoredGroup& group) {
    Clear(group);
    size_t offset = 0;
    for (int64_t j = 0; j < group.count; ++j) {
      if (!group.ok[j]) continue;
      const StoredImage& image = group.records[j];
      const size_t bytes = static_cast<size_t>(image.bytes);
      if (partial_.size() + bytes > static_cast<size_t>(c_)) {
        if (!group.chunk_images.empty()) {
          throw Error(ErrorCode::kInternal, "a group of samples completed two chunks");
        }
        HandOver(group);
      }
      partial_.insert(partial_.end(), group.stored.begin() + offset,
                      group.stored.begin() + offset + bytes);
      offset += bytes;
      images_.push_back(image);
      labels_.push_back(group.infos[j].label);
      sources_.push_back(std::move(group.infos[j].source));
    }
  }

  // Hands the last, partial chunk to the flush token.
  void Flush(StoredGroup& group) {
    Clear(group);
    if (!images_.empty()) HandOver(group);
  }

 private:
  static void Clear(StoredGroup& group) {
    group.chunk_images.clear();
    group.labels.clear();
    group.sources.clear();
  }

  void HandOver(StoredGroup& group) {
    std::swap(group.chunk, partial_);
    partial_.clear();
    partial_.reserve(static_cast<size_t>(c_));
    group.chunk_images = std::move(images_);
    group.labels = std::move(labels_);
    group.sources = std::move(sources_);
    images_.clear();
    labels_.clear();
    sources_.clear();
  }

  int64_t c_;
  std::vector<uint8_t> partial_;
  std::vector<StoredImage> images_;
  std::vector<int64_t> labels_;
  std::vector<std::string> sources_;
};

// Whether an image of `raw_bytes` pixel bytes is stored as JPEG.
bool StoredAsJpeg(const ConvertOptions& options, int64_t raw_bytes) {
  switch (options.encoding.kind) {
    case StoredEncoding::Kind::kRaw: return false;
    case StoredEncoding::Kind::kJpeg: return true;
    case StoredEncoding::Kind::kSmart: return raw_bytes > options.smart_threshold;
  }
  return false;
}

}  // namespace

ConvertReport ConvertOwnSize(const SampleSource& source, const std::string& path,
                             const ConvertOptions& options, MemoryBudget& budget,
                             const std::vector<int64_t>& order, DatasetDescription description,
                             std::chrono::steady_clock::time_point start) {
  if (options.chunk_images > 0) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "--chunk {} counts images per chunk, but these images are stored at their own sizes, in "
        "chunks of whole images of a number of bytes: give --chunk-bytes instead (default 4M)",
        options.chunk_images);
  }
  if (options.smart_threshold < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "--smart-threshold must be 0 or more bytes, got {}", options.smart_threshold);
  }
  const int64_t n = static_cast<int64_t>(order.size());  // the samples this conversion reads
  // The largest image that may be stored: the largest the source may decode (its headers'
  // sizes, capped), raw, or the worst JPEG file of the cap's square.
  const ImageShape largest = source.shape();
  const int64_t raw_bound = largest.bytes();
  const int64_t side =
      source.max_side() > 0 ? source.max_side() : std::max(largest.height, largest.width);
  const int64_t jpeg_bound = image::MaxJpegBytes(side, side, 3);
  int64_t image_bound = raw_bound;
  int64_t scratch = 0;  // per group: pixels before encoding and the JPEG file
  switch (options.encoding.kind) {
    case StoredEncoding::Kind::kRaw: break;
    case StoredEncoding::Kind::kJpeg:
      image_bound = jpeg_bound;
      scratch = raw_bound + jpeg_bound;
      break;
    case StoredEncoding::Kind::kSmart:
      image_bound = std::max(std::min(raw_bound, options.smart_threshold), jpeg_bound);
      scratch = raw_bound + jpeg_bound;
      break;
  }
  const int64_t asked = options.chunk_bytes > 0 ? options.chunk_bytes : kDefaultChunkBytes;
  const int64_t c = std::max(asked, image_bound);
  if (c >= kMaxChunkBytes) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "a chunk must hold the largest image that may be stored ({}), and HDF5 cannot store chunks "
        "of 4 GiB or more; lower --max-side or --chunk-bytes",
        ByteSize(image_bound));
  }
  // As many samples as C holds of the largest: packing a group then completes at most one
  // chunk, and a group's stored bytes fit in C.
  const int64_t group_samples = std::max<int64_t>(1, c / std::max<int64_t>(1, image_bound));

  WriterOptions writer_options;
  writer_options.compression = options.compression;
  writer_options.overwrite = options.overwrite;
  writer_options.option_names = options.option_names;
  FlatLayout layout;
  layout.chunk_bytes = c;
  layout.max_side = source.max_side();
  layout.encoding = options.encoding;
  layout.smart_threshold = options.smart_threshold;
  writer_options.flat = layout;
  Writer writer = Writer::Create(path, writer_options);

  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  const ChunkBufferReservation reservation(budget, c, scratch, threads, "--chunk-bytes");
  std::vector<std::unique_ptr<StoredGroup>> groups;  // every token, freed on any exception
  tbb::concurrent_queue<StoredGroup*> pool;          // the tokens free for reuse
  FlatPacker packer(c);
  int64_t next_first = 0;
  bool flushed = false;
  ConvertProgress progress{0, n, 0};
  ConvertReport report;

  auto plan = [&](tbb::flow_control& control) -> StoredGroup* {
    if (flushed || Cancelled(options)) {
      control.stop();
      return nullptr;
    }
    StoredGroup* group = nullptr;
    if (!pool.try_pop(group)) group = groups.emplace_back(std::make_unique<StoredGroup>()).get();
    group->first = next_first;
    group->count = std::min(group_samples, n - next_first);
    next_first += group->count;
    flushed = group->count == 0;  // the token after the last group flushes the packer
    return group;
  };
  // Decodes sample j of the group at its own size and appends its stored bytes.
  auto read_one = [&](StoredGroup& group, int64_t j) {
    const int64_t row = order[static_cast<size_t>(group.first + j)];
    StoredImage& record = group.records[j];
    bool jpeg = false;
    const size_t begin = group.stored.size();
    group.infos[j] = source.ReadOwnSize(row, [&](const ImageShape& shape) {
      record.height = static_cast<int32_t>(shape.height);
      record.width = static_cast<int32_t>(shape.width);
      record.channels = static_cast<int32_t>(shape.channels);
      jpeg = StoredAsJpeg(options, shape.bytes());
      std::vector<uint8_t>& into = jpeg ? group.pixels : group.stored;
      const size_t at = jpeg ? 0 : begin;
      into.resize(at + static_cast<size_t>(shape.bytes()));
      return std::span<uint8_t>(into.data() + at, static_cast<size_t>(shape.bytes()));
    });
    record.encoding = jpeg ? ImageEncoding::kJpeg : ImageEncoding::kRaw;
    if (jpeg) {
      image::EncodeJpeg(group.pixels, record.height, record.width, record.channels,
                        options.encoding.quality, group.jpeg);
      group.stored.insert(group.stored.end(), group.jpeg.begin(), group.jpeg.end());
    }
    record.bytes = group.stored.size() - begin;
  };
  auto read = [&](StoredGroup* group) -> StoredGroup* {
    const size_t count = static_cast<size_t>(group->count);
    group->stored.clear();
    group->stored.reserve(static_cast<size_t>(c));
    group->records.assign(count, StoredImage{});
    group->infos.assign(count, SampleInfo{});
    group->ok.assign(count, 0);
    group->skipped.clear();
    for (int64_t j = 0; j < group->count && !Cancelled(options); ++j) {
      const size_t before = group->stored.size();
      try {
        read_one(*group, j);
        group->ok[j] = 1;
      } catch (const Error& e) {
        group->stored.resize(before);
        if (e.code() != ErrorCode::kCorrupt) throw;
        if (options.strict) {
          throw MakeError(
              ErrorCode::kCorrupt,
              "{} (--strict makes a broken input an error; without it the input is skipped and "
              "recorded)",
              e.what());
        }
        const int64_t row = order[static_cast<size_t>(group->first + j)];
        group->skipped.push_back({source.name(row), e.what()});
      }
    }
    return group;
  };
  auto pack = [&](StoredGroup* group) -> StoredGroup* {
    if (group->count == 0) {
      packer.Flush(*group);
    } else {
      packer.Pack(*group);
    }
    for (SkippedSource& skipped : group->skipped) {
      if (options.on_skip) options.on_skip(skipped);
      description.skipped.push_back(std::move(skipped));
    }
    progress.done += group->count;
    progress.skipped = static_cast<int64_t>(description.skipped.size());
    group->progress = progress;
    return group;
  };
  auto encode = [&](StoredGroup* group) -> StoredGroup* {
    if (!group->chunk_images.empty()) {
      writer.EncodePackedInto(group->chunk, group->chunk_images, group->encoded);
    }
    return group;
  };
  auto write = [&](StoredGroup* group) {
    if (!group->chunk_images.empty() && !Cancelled(options)) {
      writer.Append(group->encoded);
      report.stored_bytes += group->encoded.bytes.size();
      for (const StoredImage& image : group->encoded.stored) {
        report.payload_bytes += image.bytes;
        report.raw_bytes += uint64_t(image.height) * uint64_t(image.width) * image.channels;
        report.encodings.Add(image.encoding);
      }
      description.labels.insert(description.labels.end(), group->labels.begin(),
                                group->labels.end());
      for (std::string& name : group->sources) description.sources.push_back(std::move(name));
    }
    if (options.on_progress) options.on_progress(group->progress);
    pool.push(group);
  };

  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_pipeline(
        reservation.groups(),
        tbb::make_filter<void, StoredGroup*>(tbb::filter_mode::serial_in_order, plan) &
            tbb::make_filter<StoredGroup*, StoredGroup*>(tbb::filter_mode::parallel, read) &
            tbb::make_filter<StoredGroup*, StoredGroup*>(tbb::filter_mode::serial_in_order, pack) &
            tbb::make_filter<StoredGroup*, StoredGroup*>(tbb::filter_mode::parallel, encode) &
            tbb::make_filter<StoredGroup*, void>(tbb::filter_mode::serial_in_order, write));
  });

  EndConversion(writer, description, options, path, n, report);
  report.shape = largest;
  report.own_size = true;
  report.chunk_bytes = c;
  report.max_side = layout.max_side;
  report.encoding = options.encoding;
  report.smart_threshold = options.smart_threshold;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace h5feed
