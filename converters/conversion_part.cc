#include "conversion_part.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "codec/checksum.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// Six digits of part numbers ("-00000-of-00003") would still sort; five is the convention of
// sharded datasets (TFRecord, Hugging Face), and 99,999 parts are far beyond any cluster's
// converters.
constexpr int64_t kMaxParts = 99'999;

// A whole non-negative decimal number, or -1.
int64_t ParseCount(std::string_view text) {
  int64_t value = -1;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < 0) return -1;
  return value;
}

void CheckPart(ConversionPart part, const std::string& given) {
  if (part.count < 1 || part.count > kMaxParts || part.index >= part.count) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is not a part K of N with 0 <= K < N <= {} (parts are numbered from 0)",
                    given, kMaxParts);
  }
}

struct Launcher {
  const char* rank;
  const char* size;
  const char* name;
};
constexpr Launcher kLaunchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "mpirun"},
    {"RANK", "WORLD_SIZE", "torchrun"},
    {"SLURM_PROCID", "SLURM_NTASKS", "srun"},
};

// XXH3-64 of `previous` (8 bytes, little-endian) followed by `text`.
uint64_t Chain(uint64_t previous, std::string_view text, std::vector<uint8_t>& buffer) {
  buffer.resize(8 + text.size());
  for (int i = 0; i < 8; ++i) buffer[i] = static_cast<uint8_t>(previous >> (8 * i));
  std::memcpy(buffer.data() + 8, text.data(), text.size());
  return codec::ChunkChecksum(buffer);
}

}  // namespace

const char* ProcessEnvironment(const char* name) { return std::getenv(name); }

ConversionPart PartFromEnvironment(const EnvironmentLookup& environment) {
  for (const Launcher& launcher : kLaunchers) {
    const char* rank = environment(launcher.rank);
    const char* size = environment(launcher.size);
    if (rank == nullptr && size == nullptr) continue;
    const std::string variables = std::string(launcher.rank) + "=" + (rank ? rank : "(unset)") +
                                  " and " + launcher.size + "=" + (size ? size : "(unset)");
    ConversionPart part{rank ? ParseCount(rank) : -1, size ? ParseCount(size) : -1};
    if (part.index < 0 || part.count < 1 || part.index >= part.count) {
      throw MakeError(
          ErrorCode::kInvalidArgument,
          "auto found {} (set by {}), which are not a rank and a size with 0 <= rank < size; "
          "give the part as K/N",
          variables, launcher.name);
    }
    CheckPart(part, "auto (" + variables + ")");
    return part;
  }
  std::string names;
  for (const Launcher& launcher : kLaunchers) {
    names += std::string(names.empty() ? "" : ", ") + launcher.rank + "/" + launcher.size + " (" +
             launcher.name + ")";
  }
  throw MakeError(
      ErrorCode::kInvalidArgument,
      "auto found no launcher's rank and size in the environment: none of {} is set; start the "
      "parts with one of those launchers, or give the part as K/N",
      names);
}

ConversionPart ParseConversionPart(std::string_view text, const EnvironmentLookup& environment) {
  if (text == "auto") return PartFromEnvironment(environment);
  const size_t slash = text.find('/');
  const std::string given(text);
  if (slash == std::string_view::npos) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is neither K/N (part K of N, from 0, e.g. 0/4) nor auto", given);
  }
  ConversionPart part{ParseCount(text.substr(0, slash)), ParseCount(text.substr(slash + 1))};
  if (part.index < 0 || part.count < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is neither K/N (part K of N, from 0, e.g. 0/4) nor auto", given);
  }
  CheckPart(part, given);
  return part;
}

std::string PartPath(const std::string& output, ConversionPart part) {
  if (part.whole()) return output;
  const size_t slash = output.rfind('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = output.rfind('.');
  // No suffix when the only dot starts the name (".h5") or lies in a folder's name.
  if (dot == std::string::npos || dot <= name) dot = output.size();
  char tag[32];
  std::snprintf(tag, sizeof tag, "-%05lld-of-%05lld", static_cast<long long>(part.index),
                static_cast<long long>(part.count));
  return output.substr(0, dot) + tag + output.substr(dot);
}

std::optional<std::string> WholePath(const std::string& part_path, ConversionPart part) {
  // PartPath put the tag before the suffix it found, so the tag is found the same way: a
  // PartPath of the candidate must give part_path back.
  const std::string tag = PartPath("", part);
  const size_t at = part_path.rfind(tag);
  if (at == std::string::npos) return std::nullopt;
  std::string whole = part_path;
  whole.erase(at, tag.size());
  if (PartPath(whole, part) != part_path) return std::nullopt;
  return whole;
}

std::pair<int64_t, int64_t> PartSlice(int64_t inputs, ConversionPart part) {
  // floor(k x M / N) without forming k x M: k x (M mod N) < N^2 cannot overflow.
  auto at = [&](int64_t k) {
    return k * (inputs / part.count) + k * (inputs % part.count) / part.count;
  };
  return {at(part.index), at(part.index + 1)};
}

PartRecord DescribePart(const SampleSource& source, const std::vector<int64_t>& order,
                        const std::optional<uint64_t>& shuffle_seed, ConversionPart part) {
  std::vector<uint8_t> buffer;
  uint64_t hash = Chain(0, source.kind(), buffer);
  hash = Chain(hash, shuffle_seed ? "seed:" + std::to_string(*shuffle_seed) : "unshuffled", buffer);
  const std::vector<std::string> classes = source.classes();
  hash = Chain(hash, std::to_string(classes.size()), buffer);
  for (const std::string& name : classes) hash = Chain(hash, name, buffer);
  hash = Chain(hash, std::to_string(order.size()), buffer);
  for (int64_t row : order) hash = Chain(hash, source.name(row), buffer);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return PartRecord{part.index, part.count, static_cast<int64_t>(order.size()), hex};
}

}  // namespace h5feed::converters
