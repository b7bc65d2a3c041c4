#include "conversion.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include <tbb/concurrent_queue.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "chunk_buffer_reservation.h"
#include "conversion_ending.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "own_size_conversion.h"
#include "sampler/permutation.h"

namespace h5feed {
namespace {

// One token of the pipeline: a group of up to K consecutive samples of the stored order, and
// the chunk (if any) that packing them completed. Recycled through a pool, so its buffers
// are allocated once per token rather than once per chunk.
struct Group {
  int64_t first = 0;            // position of its first sample in the stored order
  int64_t count = 0;            // samples in the group; 0 for the final flush token
  std::vector<uint8_t> pixels;  // count x image bytes, as read
  std::vector<SampleInfo> infos;
  std::vector<char> ok;
  std::vector<SkippedSource> skipped;

  std::vector<uint8_t> chunk;  // a completed chunk, chunk_count images
  int64_t chunk_count = 0;
  std::vector<int64_t> labels;
  std::vector<std::string> sources;
  EncodedChunk encoded;
  ConvertProgress progress;  // as of this group, reported when its chunk is written
};

// Moves the readable samples of consecutive groups into chunks of exactly K images (a
// skipped sample shifts all later ones). Serial: called in stored order from one thread.
class ChunkPacker {
 public:
  ChunkPacker(int64_t chunk_images, int64_t image_bytes)
      : k_(chunk_images), image_bytes_(image_bytes) {}

  // A group holds at most K samples and the partial chunk fewer than K, so packing one group
  // completes at most one chunk: it is handed to the group.
  void Pack(Group& group) {
    group.chunk_count = 0;
    group.labels.clear();
    group.sources.clear();
    bool all_ok =
        std::all_of(group.ok.begin(), group.ok.begin() + group.count, [](char c) { return c; });
    if (count_ == 0 && all_ok && group.count == k_) {
      // The common case: a whole group read cleanly is a chunk as it stands, no copy.
      std::swap(group.chunk, group.pixels);
      group.chunk_count = k_;
      for (int64_t j = 0; j < k_; ++j) {
        group.labels.push_back(group.infos[j].label);
        group.sources.push_back(std::move(group.infos[j].source));
      }
      return;
    }
    for (int64_t j = 0; j < group.count; ++j) {
      if (!group.ok[j]) continue;
      partial_.resize(static_cast<size_t>(k_ * image_bytes_));
      std::memcpy(partial_.data() + count_ * image_bytes_, group.pixels.data() + j * image_bytes_,
                  static_cast<size_t>(image_bytes_));
      labels_.push_back(group.infos[j].label);
      sources_.push_back(std::move(group.infos[j].source));
      if (++count_ == k_) HandOver(group);
    }
  }

  // Hands the last, partial chunk to the flush token.
  void Flush(Group& group) {
    group.chunk_count = 0;
    if (count_ > 0) HandOver(group);
  }

 private:
  void HandOver(Group& group) {
    std::swap(group.chunk, partial_);
    group.chunk_count = count_;
    group.labels = std::move(labels_);
    group.sources = std::move(sources_);
    labels_.clear();
    sources_.clear();
    count_ = 0;
  }

  int64_t k_;
  int64_t image_bytes_;
  std::vector<uint8_t> partial_;
  int64_t count_ = 0;
  std::vector<int64_t> labels_;
  std::vector<std::string> sources_;
};

}  // namespace

ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options) {
  auto start = std::chrono::steady_clock::now();
  const int64_t n = source.count();
  if (n == 0) {
    throw Error(ErrorCode::kInvalidArgument, "nothing to convert: the source has no sample");
  }
  if (options.chunk_bytes < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "--chunk-bytes must be positive (or 0 for 4 MiB), got {}", options.chunk_bytes);
  }
  MemoryBudget* source_budget = source.memory_budget();
  if (options.memory && source_budget && options.memory != source_budget) {
    throw Error(ErrorCode::kInvalidArgument,
                "the conversion and its source were given different memory budgets; give "
                "ConvertOptions::memory the one the source decodes within");
  }
  std::unique_ptr<MemoryBudget> own_budget;
  if (!options.memory && !source_budget) {
    own_budget = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
  }
  MemoryBudget& budget = options.memory  ? *options.memory
                         : source_budget ? *source_budget
                                         : *own_budget;
  std::vector<int64_t> order;
  if (options.shuffle) {
    order = sampler::Permutation(n, options.seed);
  } else {
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  DatasetDescription description;
  description.classes = source.classes();
  description.source_kind = std::string(source.kind());
  if (options.shuffle) description.shuffle_seed = options.seed;
  if (!options.part.whole()) {
    description.part = DescribePart(source, order, description.shuffle_seed, options.part);
    const auto [first, end] = PartSlice(n, options.part);
    if (first == end) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "part {} of {} has no input: {} inputs make at most {} parts",
                      options.part.index, options.part.count, n, n);
    }
    order = std::vector<int64_t>(order.begin() + first, order.begin() + end);
  }
  if (source.own_size()) {
    return ConvertOwnSize(source, path, options, budget, order, std::move(description), start);
  }
  if (options.encoding.kind != StoredEncoding::Kind::kRaw) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "encoding {} stores images at their own size, which a {} source does not offer",
                    options.encoding.ToString(), source.kind());
  }

  const ImageShape shape = source.shape();
  const int64_t image_bytes = shape.bytes();
  // The samples this conversion reads: all n, or its part's. Chunk sizes follow n, so the
  // parts of one conversion share them.
  const int64_t offered = static_cast<int64_t>(order.size());

  WriterOptions writer_options;
  writer_options.image_shape = shape;
  writer_options.chunk_images = options.chunk_images;
  if (writer_options.chunk_images == 0) {
    writer_options.chunk_images =
        options.chunk_bytes > 0
            ? std::clamp<int64_t>((options.chunk_bytes + image_bytes / 2) / image_bytes, 1, n)
            : DefaultChunkImages(shape, n);
  }
  writer_options.compression = options.compression;
  writer_options.overwrite = options.overwrite;
  writer_options.option_names = options.option_names;
  Writer writer = Writer::Create(path, writer_options);
  const int64_t k = writer.chunk_images();

  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  const ChunkBufferReservation reservation(budget, k * image_bytes, 0, threads, "--chunk");
  const size_t live_groups = reservation.groups();
  // Every token is owned here, so an exception thrown mid-pipeline frees them all; `pool`
  // holds the ones free for reuse. At most live_groups exist.
  std::vector<std::unique_ptr<Group>> groups;
  tbb::concurrent_queue<Group*> pool;
  ChunkPacker packer(k, image_bytes);
  int64_t next_first = 0;
  bool flushed = false;
  ConvertProgress progress{0, offered, 0};
  ConvertReport report;

  auto plan = [&](tbb::flow_control& control) -> Group* {
    if (flushed || Cancelled(options)) {
      control.stop();
      return nullptr;
    }
    Group* group = nullptr;
    if (!pool.try_pop(group)) group = groups.emplace_back(std::make_unique<Group>()).get();
    group->first = next_first;
    group->count = std::min(k, offered - next_first);
    next_first += group->count;
    flushed = group->count == 0;  // the token after the last group flushes the packer
    return group;
  };
  auto read = [&](Group* group) -> Group* {
    group->pixels.resize(static_cast<size_t>(group->count * image_bytes));
    group->infos.assign(static_cast<size_t>(group->count), SampleInfo{});
    group->ok.assign(static_cast<size_t>(group->count), 0);
    group->skipped.clear();
    for (int64_t j = 0; j < group->count && !Cancelled(options); ++j) {
      int64_t row = order[static_cast<size_t>(group->first + j)];
      std::span<uint8_t> dest(group->pixels.data() + j * image_bytes,
                              static_cast<size_t>(image_bytes));
      try {
        group->infos[j] = source.Read(row, dest);
        group->ok[j] = 1;
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kCorrupt) throw;
        if (options.strict) {
          throw MakeError(
              ErrorCode::kCorrupt,
              "{} (--strict makes a broken input an error; without it the input is skipped and "
              "recorded)",
              e.what());
        }
        group->skipped.push_back({source.name(row), e.what()});
      }
    }
    return group;
  };
  auto pack = [&](Group* group) -> Group* {
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
  auto encode = [&](Group* group) -> Group* {
    if (group->chunk_count > 0) {
      group->chunk.resize(static_cast<size_t>(group->chunk_count * image_bytes));
      writer.EncodeInto(group->chunk, group->chunk_count, group->encoded);
    }
    return group;
  };
  auto write = [&](Group* group) {
    if (group->chunk_count > 0 && !Cancelled(options)) {
      writer.Append(group->encoded);
      report.stored_bytes += group->encoded.bytes.size();
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
        live_groups, tbb::make_filter<void, Group*>(tbb::filter_mode::serial_in_order, plan) &
                         tbb::make_filter<Group*, Group*>(tbb::filter_mode::parallel, read) &
                         tbb::make_filter<Group*, Group*>(tbb::filter_mode::serial_in_order, pack) &
                         tbb::make_filter<Group*, Group*>(tbb::filter_mode::parallel, encode) &
                         tbb::make_filter<Group*, void>(tbb::filter_mode::serial_in_order, write));
  });

  EndConversion(writer, description, options, path, offered, report);
  report.shape = shape;
  // K was chosen before any input was read; when the inputs that could be read fill less than
  // one chunk (broken ones skipped), the file's one chunk holds only those.
  report.chunk_images = std::min(k, report.images);
  report.raw_bytes = static_cast<uint64_t>(report.images * image_bytes);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace h5feed
