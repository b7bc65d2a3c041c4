// elastic_order_bench [--rows N] [--chunk K] [--runs R]
//
// What an elastic Restore computes (lib/sampler/elastic_order.h), against what the loader
// computes for every epoch anyway, as markdown (bench/results/elastic.md; docs/reader.md,
// "Resuming on another number of ranks"). On an ImageNet-sized geometry (default 1,281,167
// rows in chunks of 64), batches of 256, for every sampler, medians of --runs:
//   - the reference: one EpochOrder of the whole epoch (world size 1);
//   - a Restore on the same world size: one rank's EpochOrder (rank 0 of 2);
//   - an elastic Restore: rank 0's ElasticOrder on 2 ranks after 3 ranks stopped half way
//     (one stretch), and after 8 ranks, then 3, each stopped a third of the way (two).
// The ratios elastic / reference are the figures (the bar: a restore costs at most one
// epoch order).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "median_ms.h"
#include "sampler/elastic_order.h"
#include "sampler/epoch_order.h"
#include "sampler/epoch_steps.h"
#include "whole_number_arg.h"

namespace {

using h5feed::EpochStretch;
using h5feed::SamplerOptions;
using h5feed::ShardOptions;
using h5feed::sampler::SampleGeometry;
using h5feed::sampler::StepRules;

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "elastic_order_bench: %s\nusage: elastic_order_bench [--rows N] [--chunk K] "
               "[--runs R]\n",
               problem.c_str());
  std::exit(2);
}

constexpr int64_t kBatch = 256;
constexpr uint64_t kSeed = 5;
constexpr int64_t kEpoch = 1;

// The steps each of `world` ranks delivers in a plain epoch.
int64_t PlainSteps(const SampleGeometry& geometry, int world) {
  return h5feed::sampler::CutIntoSteps(
             h5feed::sampler::SamplesPerRank(geometry, ShardOptions{0, world, false}), kBatch)
      .delivered();
}

}  // namespace

int main(int argc, char** argv) {
  long rows = 1281167, chunk = 64, runs = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 >= argc) Usage(option + " needs a value");
    const char* value = argv[++i];
    if (option == "--rows") {
      rows = WholeNumberArg(option, value, 1L << 40, Usage);
    } else if (option == "--chunk") {
      chunk = WholeNumberArg(option, value, 1L << 20, Usage);
    } else if (option == "--runs") {
      runs = WholeNumberArg(option, value, 1000, Usage);
    } else {
      Usage("unknown option " + option);
    }
  }
  const SampleGeometry geometry(rows, chunk);
  const StepRules rules{kBatch, false, 1};
  std::printf("# Elastic restore cost (lib/sampler/elastic_order.h)\n\n");
  std::printf("%ld rows in chunks of %ld, batches of %lld, medians of %ld runs.\n\n", rows, chunk,
              static_cast<long long>(kBatch), runs);
  std::printf(
      "| sampler | whole epoch's EpochOrder ms (reference) | same-size Restore: rank's "
      "EpochOrder ms | 3 -> 2 ranks ms | ratio | 8 -> 3 -> 2 ranks ms | ratio |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const char* name : {"sequential", "random", "chunks:8", "quasi:8"}) {
    const SamplerOptions sampler = SamplerOptions::Parse(name);
    const ShardOptions rank0{0, 2, false};
    const double whole = MedianMs(static_cast<int>(runs), [&] {
      h5feed::sampler::EpochOrder(geometry, sampler, ShardOptions{}, kSeed, kEpoch);
    });
    const double same = MedianMs(static_cast<int>(runs), [&] {
      h5feed::sampler::EpochOrder(geometry, sampler, rank0, kSeed, kEpoch);
    });
    const std::vector<EpochStretch> one{{3, PlainSteps(geometry, 3) / 2}};
    const double elastic = MedianMs(static_cast<int>(runs), [&] {
      h5feed::sampler::ElasticOrder(geometry, sampler, rank0, kSeed, kEpoch, rules, one);
    });
    // 8 ranks stop a third of the way; 3 ranks take the rest and stop a third of their share.
    const int64_t eight = PlainSteps(geometry, 8) / 3;
    const int64_t left = rows - 8 * eight * kBatch;
    const int64_t three = (left / 3 + kBatch - 1) / kBatch / 3;
    const std::vector<EpochStretch> two{{8, eight}, {3, three}};
    const double twice = MedianMs(static_cast<int>(runs), [&] {
      h5feed::sampler::ElasticOrder(geometry, sampler, rank0, kSeed, kEpoch, rules, two);
    });
    std::printf("| %s | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f |\n", name, whole, same, elastic,
                elastic / whole, twice, twice / whole);
  }
  return 0;
}
