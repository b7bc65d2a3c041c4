#pragma once
// A conversion in parts (docs/format.md, "Conversion in parts"): N processes, on one machine or
// many, each convert one slice of the same stored order into a file of its own, which
// `h5feed merge` (merge.h) then joins into one.
//
// The stored order is the one a single conversion uses (the source's order, shuffled by the
// seed): part K of N takes positions [floor(K x M / N), floor((K + 1) x M / N)) of it, M the
// source's inputs, so the slices are contiguous, cover the order exactly once and differ in
// size by at most one input. Labels and classes are the source's, the whole dataset's.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "h5feed/writer.h"
#include "sample_source.h"

namespace h5feed::converters {

struct ConversionPart {
  int64_t index = 0;  // K, 0 <= K < N
  int64_t count = 1;  // N; 1 = the whole conversion, one ordinary file
  bool whole() const { return count == 1; }
};

// How a process finds its environment variables: getenv, or a table in tests.
using EnvironmentLookup = std::function<const char*(const char*)>;
// This process's environment (std::getenv).
const char* ProcessEnvironment(const char* name);

// Parses --part: "K/N" (0 <= K < N), or "auto" for the launcher's rank and size
// (PartFromEnvironment). Throws Error(kInvalidArgument) saying what is accepted, led by the
// text given, not the flag: the command line's check names the flag.
ConversionPart ParseConversionPart(std::string_view text, const EnvironmentLookup& environment);

// The rank and world size the process was started with, from the first launcher whose
// variables are set, in this order: mpirun (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE),
// torchrun and other PyTorch launchers (RANK, WORLD_SIZE), srun (SLURM_PROCID, SLURM_NTASKS).
// mpirun's come first because a SLURM allocation's variables are inherited by everything
// started in it, an mpirun inside an sbatch script included, where SLURM_PROCID is 0 for every
// process. Throws Error(kInvalidArgument) when none is set, or the first set is half set, not
// a number, or has a rank outside [0, size).
ConversionPart PartFromEnvironment(const EnvironmentLookup& environment);

// The file part K of N is written to: `output` with "-KKKKK-of-NNNNN" before its suffix
// ("train.h5", part 0 of 3: "train-00000-of-00003.h5"; "train": "train-00000-of-00003").
// `output` itself for a whole conversion.
std::string PartPath(const std::string& output, ConversionPart part);

// The inverse of PartPath: the output that `part_path`, the file of `part`, was named from
// ("train-00001-of-00003.h5", part 1 of 3: "train.h5"); nullopt when its name lacks that
// part's tag (a renamed file).
std::optional<std::string> WholePath(const std::string& part_path, ConversionPart part);

// The positions [first, end) of a stored order of `inputs` entries that `part` converts.
std::pair<int64_t, int64_t> PartSlice(int64_t inputs, ConversionPart part);

// What part `part` of a conversion of `source` in the stored order `order` (all of it, every
// part's) records in its file: the fingerprint is XXH3-64 chained over the source's kind, the
// order's seed (or "unshuffled"), its classes and every input's name in `order` (docs/format.md
// gives the recipe), as 16 hex digits. Reads every name: linear in the inputs.
PartRecord DescribePart(const SampleSource& source, const std::vector<int64_t>& order,
                        const std::optional<uint64_t>& shuffle_seed, ConversionPart part);

}  // namespace h5feed::converters
