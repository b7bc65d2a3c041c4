#pragma once
// Batch echoing (Choi et al. 2019, "Faster Neural Network Training with Data Echoing"): each
// loaded batch is delivered `echo` times, its rows reshuffled for every copy after the first,
// so a trainer limited by loading sees `echo` times the batches for the same reads.
//
// Numbering: with E = echo, loaded step s is delivered as steps s * E + e for copies
// e = 0 .. E-1. Copy 0 is the batch as loaded (so echo = 1 changes nothing); copy e >= 1 has
// rows permuted: row i of copy e is row EchoPermutation(...)[i] of the loaded batch.
//
// On the CPU every copy is a real copy into its own host slot (pipeline/batch_assembler.h):
// the memory bound stays slots x slot bytes, but a loaded batch ties up E slots until its last
// copy is released, so the loaded-batch prefetch depth is slots / E (the loader requires
// slots >= E). A copy costs one memcpy of the batch, far below the reading and decompressing
// it replaces (docs/gpu.md, "Echo on the device"). The GPU stage instead
// permutes on the device from one host transfer, using the same EchoPermutation.
//
// Seeds (transform/random_streams.h):
//   EchoSeed(seed, epoch, step, copy) = StreamKey(seed, epoch, kEcho, step, copy)
//     = Mix(Mix(Mix(Mix(Mix(seed) ^ uint64(epoch)) ^ 4) ^ uint64(step)) ^ uint64(copy))

#include <cstdint>
#include <span>
#include <vector>

#include "memory/slot_layout.h"

namespace h5feed::pipeline {

// A delivered step in the numbering above: copy `copy` of loaded step `loaded`. The one place
// that converts between the two numberings (the assembler, the GPU feed and the loader count
// in either).
struct EchoStep {
  int64_t loaded = 0;
  int copy = 0;

  // Delivered step `step` of a run echoing each loaded batch `echo` times (echo >= 1).
  static EchoStep Of(int64_t step, int echo) {
    return EchoStep{step / echo, static_cast<int>(step % echo)};
  }
  int64_t delivered(int echo) const { return loaded * echo + copy; }
};

uint64_t EchoSeed(uint64_t seed, int64_t epoch, int64_t step, int copy);

// The row order of copy `copy` of loaded step `step` with `rows` rows: 0..rows-1 for copy 0,
// else Permutation(rows, EchoSeed(...)) (sampler/permutation.h).
std::vector<int64_t> EchoPermutation(int64_t rows, uint64_t seed, int64_t epoch, int64_t step,
                                     int copy);

// to[i] = from[permutation[i]] for every array of the slot (images; labels; indices; array
// fields; normalized images when the layout has them and with_output; not row orders), for
// i < permutation.size(). Parallel over rows in the calling arena. `from` and `to` must not
// overlap. with_output = false when the copy is normalized afresh (its own augmentation draws).
void CopyPermuted(const memory::SlotLayout& layout, const memory::SlotView& from,
                  const memory::SlotView& to, std::span<const int64_t> permutation,
                  bool with_output = true);

}  // namespace h5feed::pipeline
