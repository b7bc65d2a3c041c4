// label_mixing_bench [--rows N] [--classes C] [--runs R] [--seeds S]
//
// The label-mixing check Loader::Open runs (lib/sampler/label_mixing.h), measured two ways, as
// markdown (bench/results/label_mixing.md; docs/reader.md, "Label mixing"):
//
// 1. What it costs at Open on an ImageNet-sized label set (default 1,281,167 rows of 1,000
//    classes), class-sorted and shuffled, in chunks of 27 and 64 rows read by chunks:8: the
//    meter (labels to dense ids), Measure (the sampler's order against a shuffle of its rows),
//    and, for a file that warns, the search for the window that mixes. Beside them, as the
//    reference measured in the same run, one EpochOrder of chunks:8: what the loader computes
//    for every epoch anyway. Medians of --runs.
// 2. Where the bar lies: the entropy ratio and classes per batch of class-sorted and shuffled
//    files of several sizes under chunks:8, quasi:8 and chunks:32, whether each warns, and over
//    --seeds seeds per small file how often a shuffled file warns (must be never) and a
//    class-sorted one does.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "median_ms.h"
#include "sampler/epoch_order.h"
#include "sampler/label_mixing.h"
#include "sampler/permutation.h"
#include "whole_number_arg.h"

namespace {

using h5feed::SamplerOptions;
using h5feed::ShardOptions;
using h5feed::sampler::EpochOrder;
using h5feed::sampler::LabelMixing;
using h5feed::sampler::LabelMixingMeter;
using h5feed::sampler::SampleGeometry;

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "label_mixing_bench: %s\nusage: label_mixing_bench [--rows N] [--classes C] "
               "[--runs R] [--seeds S]\n",
               problem.c_str());
  std::exit(2);
}

std::string Fixed(double value, const char* format = "%.1f") {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// `rows` labels of `classes` classes in equal numbers, class after class; shuffled with `seed`
// when seed > 0.
std::vector<int64_t> Labels(int64_t rows, int64_t classes, uint64_t seed) {
  std::vector<int64_t> labels(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) labels[static_cast<size_t>(r)] = r * classes / rows;
  if (seed > 0) {
    h5feed::transform::SplitMix64 rng(seed);
    h5feed::sampler::Shuffle(std::span<int64_t>(labels), rng);
  }
  return labels;
}

void Cost(int64_t rows, int64_t classes, int runs) {
  std::printf("## Cost at Open: %lld labels of %lld classes, batches of 256, chunks:8\n\n",
              static_cast<long long>(rows), static_cast<long long>(classes));
  std::printf(
      "| file | K | meter ms | measure ms | window search ms | EpochOrder ms "
      "(reference) | check / EpochOrder | ratio | classes/batch (random) | window |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const SamplerOptions sampler = SamplerOptions::Parse("chunks:8");
  for (const bool sorted : {true, false}) {
    const std::vector<int64_t> labels = Labels(rows, classes, sorted ? 0 : 7);
    for (const int64_t k : {27, 64}) {
      const SampleGeometry geometry{rows, k};
      std::vector<int64_t> order;
      const double order_ms =
          MedianMs(runs, [&] { order = EpochOrder(geometry, sampler, ShardOptions{}, 0, 0); });
      const double meter_ms = MedianMs(runs, [&] { LabelMixingMeter meter(labels); });
      const LabelMixingMeter meter(labels);
      LabelMixing mixing;
      const double measure_ms = MedianMs(runs, [&] { mixing = meter.Measure(order, 256); });
      const bool warns = h5feed::sampler::MixesTooFewClasses(mixing);
      std::string search = "-", window = "no warning";
      if (warns) {
        std::optional<int64_t> found;
        search = Fixed(MedianMs(runs, [&] {
          found = meter.WindowThatMixes(geometry, sampler, 0, 256, mixing.random);
        }));
        window = found ? "chunks:" + std::to_string(*found) : "none";
      }
      std::printf("| %s | %lld | %.1f | %.1f | %s | %.1f | %.2f | %.3f | %.1f (%.1f) | %s |\n",
                  sorted ? "class-sorted" : "shuffled", static_cast<long long>(k), meter_ms,
                  measure_ms, search.c_str(), order_ms, (meter_ms + measure_ms) / order_ms,
                  mixing.entropy_ratio, mixing.order.classes_per_batch,
                  mixing.random.classes_per_batch, window.c_str());
    }
  }
  std::printf("\n");
}

struct Case {
  int64_t rows, classes, chunk, batch;
};

void Bar(int seeds) {
  std::printf(
      "## Where the bar lies (%.2f of the random order's entropy, %g standard "
      "errors)\n\n",
      h5feed::sampler::kMinEntropyRatio, h5feed::sampler::kStandardErrors);
  std::printf(
      "| rows | classes | K | batch | sampler | sorted: ratio, classes/batch (random) | "
      "warns | shuffled: ratio | warns |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const std::vector<Case> files{
      {1281167, 1000, 64, 256}, {50000, 100, 64, 256}, {50000, 10, 1024, 256}, {50000, 10, 64, 256},
      {10000, 4, 64, 256},      {10000, 2, 64, 256},   {2000, 10, 50, 64},     {1000, 10, 16, 32}};
  for (const Case& c : files) {
    const LabelMixingMeter sorted(Labels(c.rows, c.classes, 0));
    const LabelMixingMeter shuffled(Labels(c.rows, c.classes, 11));
    for (const char* name : {"chunks:8", "quasi:8", "chunks:32"}) {
      const std::vector<int64_t> order = EpochOrder(
          SampleGeometry{c.rows, c.chunk}, SamplerOptions::Parse(name), ShardOptions{}, 0, 0);
      const LabelMixing s = sorted.Measure(order, c.batch);
      const LabelMixing m = shuffled.Measure(order, c.batch);
      std::printf("| %lld | %lld | %lld | %lld | %s | %.3f, %.1f (%.1f) | %s | %.3f | %s |\n",
                  static_cast<long long>(c.rows), static_cast<long long>(c.classes),
                  static_cast<long long>(c.chunk), static_cast<long long>(c.batch), name,
                  s.entropy_ratio, s.order.classes_per_batch, s.random.classes_per_batch,
                  h5feed::sampler::MixesTooFewClasses(s) ? "yes" : "no", m.entropy_ratio,
                  h5feed::sampler::MixesTooFewClasses(m) ? "yes" : "no");
    }
  }
  std::printf(
      "\nSmall files over %d seeds each (file shuffle, and epoch order: chunks:8, "
      "quasi:8, chunks:1 for shuffled files, chunks:8 for sorted ones):\n\n",
      seeds);
  std::printf(
      "| rows | classes | K | batch | shuffled files that warn | lowest ratio | "
      "class-sorted files that warn |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  const std::vector<Case> small{{16, 3, 2, 2},      {40, 5, 5, 5},     {64, 10, 4, 8},
                                {256, 3, 2, 2},     {300, 2, 10, 3},   {256, 10, 8, 16},
                                {400, 4, 10, 16},   {600, 10, 20, 32}, {1000, 10, 16, 32},
                                {2000, 10, 50, 64}, {1024, 2, 16, 64}, {2048, 1000, 16, 128}};
  for (const Case& c : small) {
    int shuffled_warns = 0, shuffled_runs = 0, sorted_warns = 0;
    double lowest = 10;
    const LabelMixingMeter sorted(Labels(c.rows, c.classes, 0));
    for (int seed = 1; seed <= seeds; ++seed) {
      const LabelMixingMeter shuffled(Labels(c.rows, c.classes, static_cast<uint64_t>(seed)));
      for (const char* name : {"chunks:8", "quasi:8", "chunks:1"}) {
        const std::vector<int64_t> order =
            EpochOrder(SampleGeometry{c.rows, c.chunk}, SamplerOptions::Parse(name), ShardOptions{},
                       static_cast<uint64_t>(seed), 0);
        const LabelMixing m = shuffled.Measure(order, c.batch);
        shuffled_warns += h5feed::sampler::MixesTooFewClasses(m);
        lowest = std::min(lowest, m.entropy_ratio);
        ++shuffled_runs;
        if (std::strcmp(name, "chunks:8") == 0) {
          sorted_warns += h5feed::sampler::MixesTooFewClasses(sorted.Measure(order, c.batch));
        }
      }
    }
    std::printf("| %lld | %lld | %lld | %lld | %d of %d | %.3f | %d of %d |\n",
                static_cast<long long>(c.rows), static_cast<long long>(c.classes),
                static_cast<long long>(c.chunk), static_cast<long long>(c.batch), shuffled_warns,
                shuffled_runs, lowest, sorted_warns, seeds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 1281167, classes = 1000;
  int runs = 5, seeds = 500;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "--rows" && arg != "--classes" && arg != "--runs" && arg != "--seeds") {
      Usage("unexpected argument '" + arg + "'");
    }
    if (++i >= argc) Usage(arg + " needs a value");
    const long value = WholeNumberArg(arg, argv[i], 100'000'000, Usage);
    if (arg == "--rows") rows = value;
    if (arg == "--classes") classes = value;
    if (arg == "--runs") runs = static_cast<int>(value);
    if (arg == "--seeds") seeds = static_cast<int>(value);
  }
  std::printf("# Label mixing (lib/sampler/label_mixing.h)\n\n");
  Cost(rows, classes, runs);
  Bar(seeds);
  return 0;
}
