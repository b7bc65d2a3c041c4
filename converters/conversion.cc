#include "conversion.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tbb/concurrent_queue.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "chunk_buffer_reservation.h"
#include "chunk_packer.h"
#include "conversion_ending.h"
#include "field_row_check.h"
#include "field_value_rows.h"
#include "fixed_chunk_packer.h"
#include "flat_chunk_packer.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "path_role.h"
#include "stored_order.h"

namespace h5feed::converters {
namespace {

// Throws Error(kInvalidArgument) when the values `info` carries do not fit the source's fields:
// one value per field, each a valid row of it (field_row_check.h). A value that does not fit
// is the source's or its data's fault, never a damaged input to skip: it would be a hole in
// a column that every later row shifts into.
void CheckSampleFields(const std::vector<FieldSpec>& fields, const SampleInfo& info,
                       const SampleSource& source, int64_t row) {
  if (fields.empty() && info.fields.empty()) return;
  const std::string name = info.source.empty() ? source.name(row) : info.source;
  if (info.fields.size() != fields.size()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} of a {} source carries {} field values, but the source has {} fields; "
                    "give one value per field",
                    name, source.kind(), info.fields.size(), fields.size());
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    const std::string problem = FieldRowProblem(fields[f], info.fields[f]);
    if (!problem.empty()) {
      throw MakeError(ErrorCode::kInvalidArgument, "field {} ({}) of {} {}", fields[f].name,
                      fields[f].Describe(), name, problem);
    }
  }
}

// One conversion's pipeline: plan -> read -> pack -> encode -> write, over its tokens
// (sample_group.h), with what differs by layout asked of `packer`. Made and run on the
// converting thread; its filters run on the arena's threads as tbb::parallel_pipeline
// schedules them (the serial ones one token at a time, in order).
class ConversionPipeline {
 public:
  // `order`: the source rows to convert, in stored order. `make_writer` makes `writer` anew
  // for the packer's layout, when its Flush changed it. Everything given must outlive Run.
  ConversionPipeline(const SampleSource& source, const std::vector<int64_t>& order,
                     const ConvertOptions& options, ChunkPacker& packer, Writer& writer,
                     const std::function<Writer()>& make_writer, DatasetDescription& description)
      : source_(source),
        fields_(source.fields()),
        labelled_(source.labelled()),
        order_(order),
        options_(options),
        packer_(packer),
        writer_(writer),
        make_writer_(make_writer),
        description_(description),
        earlier_(description.skipped.size()),
        progress_{0, static_cast<int64_t>(order.size()), 0} {}

  // Runs the pipeline on `threads` threads with at most `live_groups` groups in flight.
  WrittenChunks Run(int threads, size_t live_groups) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      tbb::parallel_pipeline(
          live_groups,
          tbb::make_filter<void, SampleGroup*>(
              tbb::filter_mode::serial_in_order,
              [this](tbb::flow_control& control) { return Plan(control); }) &
              tbb::make_filter<SampleGroup*, SampleGroup*>(
                  tbb::filter_mode::parallel, [this](SampleGroup* group) { return Read(group); }) &
              tbb::make_filter<SampleGroup*, SampleGroup*>(
                  tbb::filter_mode::serial_in_order,
                  [this](SampleGroup* group) { return Pack(group); }) &
              tbb::make_filter<SampleGroup*, SampleGroup*>(
                  tbb::filter_mode::parallel,
                  [this](SampleGroup* group) { return Encode(group); }) &
              tbb::make_filter<SampleGroup*, void>(tbb::filter_mode::serial_in_order,
                                                   [this](SampleGroup* group) { Write(group); }));
    });
    return written_;
  }

 private:
  SampleGroup* Plan(tbb::flow_control& control) {
    if (flushed_ || Cancelled(options_)) {
      control.stop();
      return nullptr;
    }
    SampleGroup* group = nullptr;
    if (!pool_.try_pop(group)) group = groups_.emplace_back(std::make_unique<SampleGroup>()).get();
    const int64_t offered = static_cast<int64_t>(order_.size());
    group->first = next_first_;
    group->count = std::min(packer_.plan().samples, offered - next_first_);
    next_first_ += group->count;
    flushed_ = group->count == 0;  // the token after the last group flushes the packer
    return group;
  }

  SampleGroup* Read(SampleGroup* group) const {
    group->StartReading(static_cast<size_t>(packer_.plan().chunk_bytes));
    for (int64_t j = 0; j < group->count && !Cancelled(options_); ++j) {
      const int64_t row = order_[static_cast<size_t>(group->first + j)];
      const size_t before = group->samples.size();
      try {
        SampleInfo& info = group->infos[static_cast<size_t>(j)];
        info = packer_.Read(source_, row, *group, j);
        CheckSampleFields(fields_, info, source_, row);
        group->ok[static_cast<size_t>(j)] = 1;
      } catch (const Error& e) {
        group->samples.Truncate(before);
        if (e.code() != ErrorCode::kCorrupt) throw;
        if (options_.strict) {
          throw MakeError(
              ErrorCode::kCorrupt,
              "{} ({} makes a broken input an error; without it the input is skipped and "
              "recorded)",
              e.what(), NameOption(options_.option_names, "ConvertOptions", "strict"));
        }
        group->skipped.push_back({source_.name(row), e.what()});
      }
    }
    return group;
  }

  SampleGroup* Pack(SampleGroup* group) {
    if (group->count == 0) {
      // No chunk was handed before a layout change, so no other filter is using the writer.
      if (packer_.Flush(*group)) {
        writer_.Abandon();  // its temporary file's name is the new one's
        writer_ = make_writer_();
      }
    } else {
      packer_.Pack(*group);
      // Their values are in the chunk now; a token kept in the pool holds none.
      group->infos.clear();
    }
    for (SkippedSource& skipped : group->skipped) {
      if (options_.on_skip) options_.on_skip(skipped);
      description_.skipped.push_back(std::move(skipped));
    }
    progress_.done += group->count;
    progress_.skipped = static_cast<int64_t>(description_.skipped.size() - earlier_);
    group->progress = progress_;
    return group;
  }

  SampleGroup* Encode(SampleGroup* group) const {
    if (!group->chunk.empty()) packer_.Encode(writer_, *group);
    return group;
  }

  void Write(SampleGroup* group) {
    PackedChunk& chunk = group->chunk;
    if (!chunk.empty() && !Cancelled(options_)) {
      writer_.Append(group->encoded);
      if (!fields_.empty()) writer_.AppendFields(chunk.fields);
      written_.stored_bytes += group->encoded.bytes.size();
      for (const StoredImage& image : chunk.images) {
        written_.raw_bytes += uint64_t(image.height) * uint64_t(image.width) * image.channels;
        written_.payload_bytes += image.bytes;
        written_.encodings.Add(image.encoding);
      }
      if (labelled_) {
        description_.labels.insert(description_.labels.end(), chunk.labels.begin(),
                                   chunk.labels.end());
      }
      for (std::string& name : chunk.sources) description_.sources.push_back(std::move(name));
    }
    if (options_.on_progress) options_.on_progress(group->progress);
    pool_.push(group);
  }

  const SampleSource& source_;
  const std::vector<FieldSpec> fields_;  // the source's, asked once
  const bool labelled_;
  const std::vector<int64_t>& order_;
  const ConvertOptions& options_;
  ChunkPacker& packer_;
  Writer& writer_;
  const std::function<Writer()>& make_writer_;
  DatasetDescription& description_;
  const size_t earlier_;  // description_.skipped's first entries, the source's own (not ours)

  // Every token is owned here, so an exception thrown mid-pipeline frees them all; `pool_`
  // holds the ones free for reuse. At most live_groups exist.
  std::vector<std::unique_ptr<SampleGroup>> groups_;
  tbb::concurrent_queue<SampleGroup*> pool_;
  int64_t next_first_ = 0;    // Plan's
  bool flushed_ = false;      // Plan's
  ConvertProgress progress_;  // Pack's
  WrittenChunks written_;     // Write's
};

// The budget the conversion's chunk buffers share with the source's decoding: the one given,
// the source's own, or a default one made in `fallback`.
MemoryBudget& SharedBudget(const SampleSource& source, const ConvertOptions& options,
                           std::unique_ptr<MemoryBudget>& fallback) {
  MemoryBudget* source_budget = source.memory_budget();
  if (options.memory && source_budget && options.memory != source_budget) {
    throw Error(ErrorCode::kInvalidArgument,
                "the conversion and its source were given different memory budgets; give "
                "ConvertOptions::memory the one the source decodes within");
  }
  if (options.memory) return *options.memory;
  if (source_budget) return *source_budget;
  fallback = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
  return *fallback;
}

// What the file records about its input before any row is read: with the whole input, the
// inputs its own making skipped first (a part leaves them out: merge checks that its parts'
// images and skipped inputs add up to the input's rows). With a part, `order` becomes that
// part's slice of the whole order. Throws when the part has no input.
DatasetDescription DescribeInput(const SampleSource& source, const ConvertOptions& options,
                                 std::vector<int64_t>& order) {
  DatasetDescription description;
  if (source.labelled()) description.classes = source.classes();
  description.box_classes = source.box_classes();
  description.source_kind = std::string(source.kind());
  if (options.shuffle) description.shuffle_seed = options.seed;
  if (options.part.whole()) description.skipped = source.skipped_earlier();
  if (!options.part.whole()) {
    const int64_t n = static_cast<int64_t>(order.size());
    description.part = DescribePart(source, order, description.shuffle_seed, options.part);
    const auto [first, end] = PartSlice(n, options.part);
    if (first == end) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "part {} of {} has no input: {} inputs make at most {} parts",
                      options.part.index, options.part.count, n, n);
    }
    order = std::vector<int64_t>(order.begin() + first, order.begin() + end);
  }
  return description;
}

// What a group holds of its samples' field values: as read and in the chunk packed (bytes and
// text values as ConvertOptions::value_bytes expects them).
int64_t FieldBytes(const std::vector<FieldSpec>& fields, int64_t value_bytes, int64_t samples) {
  return 2 * samples * FieldValueBytes(fields, value_bytes);
}

// Says where the inputs skipped by the making of the source went: into the file's skipped
// lists (`earlier` of them), or, for a part, nowhere.
void AddEarlierSkippedNote(const SampleSource& source, const ConvertOptions& options,
                           size_t earlier, std::vector<std::string>& notes) {
  if (earlier > 0) {
    notes.push_back(
        fmt::format("the input's own conversion skipped {}: they are recorded in "
                    "this file's skipped lists too (h5feed inspect lists them)",
                    earlier));
  } else if (!options.part.whole()) {
    const size_t dropped = source.skipped_earlier().size();
    if (dropped > 0) {
      notes.push_back(
          fmt::format("the input's own conversion skipped {}: a part does not "
                      "record them (h5feed inspect on the input lists them)",
                      dropped));
    }
  }
}

// The one choice that depends on the layout.
std::unique_ptr<ChunkPacker> PackerFor(const SampleSource& source, const ConvertOptions& options) {
  return source.own_size() ? MakeFlatChunkPacker(source, options)
                           : MakeFixedChunkPacker(source, options);
}

}  // namespace

void CheckOutputPath(const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the output {} ends in .npy, as a NumPy input does: is it an input given in "
                    "the output's place? Give the h5feed file to write (an .h5 path) as the "
                    "output; it is left as it is",
                    path);
  }
}

ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CheckOutputPath(path);
  if (source.count() == 0) {
    throw Error(ErrorCode::kInvalidArgument, "nothing to convert: the source has no sample");
  }
  if (options.chunk_bytes < 0) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} must be positive (or 0 for 4 MiB), got {}",
                    NameOption(options.option_names, "ConvertOptions", "chunk_bytes"),
                    options.chunk_bytes);
  }
  std::unique_ptr<MemoryBudget> fallback_budget;
  MemoryBudget& budget = SharedBudget(source, options, fallback_budget);
  // The rows this conversion reads: all, or its part's. Chunk sizes follow the whole source,
  // so the parts of one conversion share them.
  std::vector<int64_t> order = StoredOrder(source.count(), options.shuffle, options.seed);
  DatasetDescription description = DescribeInput(source, options, order);
  const size_t earlier = description.skipped.size();
  const std::unique_ptr<ChunkPacker> packer = PackerFor(source, options);

  // Made before any input is read, so that an output that exists or cannot be written is
  // refused at once; made anew only if the packer's layout changes (ChunkPacker::Flush).
  const std::function<Writer()> make_writer = [&] {
    WriterOptions writer_options;
    packer->SetLayout(writer_options);
    writer_options.compression = options.compression;
    writer_options.overwrite = options.overwrite;
    writer_options.option_names = options.option_names;
    writer_options.fields = source.fields();
    writer_options.labelled = source.labelled();
    writer_options.box_coordinates = source.box_coordinates();
    return InRole("output", path, [&] { return Writer::Create(path, writer_options); });
  };
  Writer writer = make_writer();

  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  const GroupPlan& plan = packer->plan();
  const ChunkBufferReservation reservation(
      budget, plan.chunk_bytes, plan.scratch_bytes,
      FieldBytes(source.fields(), options.value_bytes, plan.samples),
      FieldValueBytes(source.fields(), options.value_bytes), threads, options.option_names,
      plan.chunk_option);
  ConversionPipeline pipeline(source, order, options, *packer, writer, make_writer, description);
  const WrittenChunks written = pipeline.Run(threads, reservation.groups());

  ConvertReport report;
  EndConversion(writer, description, earlier, options, path, static_cast<int64_t>(order.size()),
                report);
  report.stored_bytes = written.stored_bytes;
  report.fields = source.fields();
  report.labelled = source.labelled();
  report.notes = source.notes();
  AddEarlierSkippedNote(source, options, earlier, report.notes);
  packer->Report(written, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace h5feed::converters
