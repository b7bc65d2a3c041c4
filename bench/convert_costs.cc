// convert_costs DIR [--size HxW] [--compression C] [--images N] [--rounds R] [--threads T]
//               [--write-dir D] [--json]
//
// What each step of `h5feed convert imagefolder` costs on one thread, with the converter's own
// code: the breakdown behind bench/README.md ("Where the converter's time goes"). The converter
// benchmark measures whole conversions; this measures their parts, so the gap between a
// conversion and its targets (2.5x the PIL + h5py reference, 0.85 of decode-only) can be
// accounted for step by step.
//
// Per image: reading the file (open, pread, close, as the converter reads it; the page cache
// should hold the folder), decoding at full size (what decode_rate times: the decode-only
// reference), decoding as the converter does (a JPEG at a reduced DCT scale when the target
// size allows), and fitting to --size (image/resize.h); per
// chunk of K images (h5feed's default K): the XXH3 checksum, compression, and a pwrite of the
// stored bytes into a file in the page cache (created in --write-dir and unlinked at once, so
// nothing is left behind).
//
// Prints each step's milliseconds of one thread per image (best of R rounds), its share of the
// converting steps (full-size decoding is not one of them), and the rate their sum allows on T
// threads with perfect scaling: no converter doing these steps with this code can go faster on
// this machine. --json prints one object instead.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/checksum.h"
#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "h5feed/writer.h"
#include "image/image_decoder.h"
#include "image/resize.h"
#include "sources/image_folder.h"
#include "sources/read_file.h"
#include "whole_number_arg.h"

namespace {

using h5feed::Compression;
using h5feed::converters::image::Size;

struct Options {
  std::string dir;
  Size size{224, 224};
  Compression compression;  // zstd:3, the converter's default
  int64_t images = 0;       // 0 = every image of DIR
  int rounds = 3;
  int threads = 2;
  std::string write_dir = std::filesystem::temp_directory_path().string();
  bool json = false;
};

constexpr char kUsage[] =
    "usage: convert_costs DIR [--size HxW=224x224] [--compression C=zstd:3] [--images N=all] "
    "[--rounds R=3] [--threads T=2] [--write-dir D=$TMPDIR] [--json]";

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr, "convert_costs: %s\n%s\n", problem.c_str(), kUsage);
  std::exit(2);
}

long WholeNumber(const std::string& name, const char* text) {
  return WholeNumberArg(name, text, 100'000'000, Usage);
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf(
          "%s\nWhat each step of converting an image folder costs on one thread "
          "(bench/README.md).\n",
          kUsage);
      std::exit(0);
    }
    if (arg == "--json") {
      options.json = true;
      continue;
    }
    if (!arg.starts_with("-")) {
      if (!options.dir.empty()) Usage("one DIR only; got '" + options.dir + "' and '" + arg + "'");
      options.dir = arg;
      continue;
    }
    if (++i >= argc) Usage(arg + " needs a value");
    const char* value = argv[i];
    if (arg == "--size") {
      int height = 0, width = 0;
      char tail = 0;
      if (std::sscanf(value, "%dx%d%c", &height, &width, &tail) != 2 || height < 1 || width < 1) {
        Usage("--size wants HxW (height first), e.g. 224x224, got '" + std::string(value) + "'");
      }
      options.size = {height, width};
    } else if (arg == "--compression") {
      try {
        options.compression = Compression::Parse(value);
      } catch (const h5feed::Error& e) {
        Usage(e.what());
      }
    } else if (arg == "--images") {
      options.images = WholeNumber(arg, value);
    } else if (arg == "--rounds") {
      options.rounds = static_cast<int>(WholeNumber(arg, value));
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(WholeNumber(arg, value));
    } else if (arg == "--write-dir") {
      options.write_dir = value;
    } else {
      Usage("unknown option " + arg);
    }
  }
  if (options.dir.empty()) Usage("no DIR given");
  return options;
}

// A file in `dir` that exists only through its descriptor: unlinked as soon as it is created.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& dir) {
    std::string name = dir + "/convert_costs.XXXXXX";
    fd_ = mkstemp(name.data());
    if (fd_ < 0) {
      throw h5feed::Error(h5feed::ErrorCode::kIo, "cannot create a scratch file in " + dir + ": " +
                                                      std::strerror(errno) + " (pass --write-dir)");
    }
    unlink(name.c_str());
  }
  ~ScratchFile() { close(fd_); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  void Write(std::span<const uint8_t> bytes, off_t offset) const {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = pwrite(fd_, bytes.data() + done, bytes.size() - done, offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw h5feed::Error(h5feed::ErrorCode::kIo,
                            std::string("writing the scratch file: ") + std::strerror(errno));
      }
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_ = -1;
};

// The steps, in the order they are reported. kDecodeFull is the reference, not a step of the
// conversion.
enum Step { kDecodeFull, kRead, kDecodeScaled, kResize, kChecksum, kCompress, kWrite, kStepCount };
constexpr std::array<const char*, kStepCount> kStepKeys = {
    "decode_full", "read", "decode_scaled", "resize", "checksum", "compress", "write"};

using Seconds = std::array<double, kStepCount>;

class Clock {
 public:
  // Adds the time since the last call (or construction) to `total`.
  void Lap(double& total) {
    const auto now = std::chrono::steady_clock::now();
    total += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The stored bytes of a compressed chunk, into a reused buffer as the converter does
// (Writer::EncodeInto without its checksum).
void CompressChunk(std::span<const uint8_t> chunk, const Compression& compression,
                   std::vector<uint8_t>& stored) {
  if (compression.kind == Compression::Kind::kDeflate) {
    h5feed::codec::DeflateCompressInto(chunk, compression.level, stored);
  } else {
    h5feed::codec::ZstdCompressInto(chunk, compression.level, stored);
  }
}

class ConvertCosts {
 public:
  ConvertCosts(const Options& options, std::vector<std::string> paths)
      : options_(options),
        paths_(std::move(paths)),
        image_bytes_(int64_t{options.size.height} * options.size.width * 3),
        chunk_images_(h5feed::DefaultChunkImages({options.size.height, options.size.width, 3},
                                                 static_cast<int64_t>(paths_.size()))),
        chunk_(static_cast<size_t>(chunk_images_ * image_bytes_)) {}

  // K of the file the converter would write: its default K, or, when the images converted
  // fill less than one chunk of it, those images (the converter counts K from them then).
  int64_t chunk_images() const { return stored_chunk_images_; }
  int64_t converted() const { return converted_; }
  int64_t broken() const { return static_cast<int64_t>(paths_.size()) - converted_; }

  // Each step's best total over the rounds.
  Seconds Best() {
    Seconds best;
    best.fill(1e300);
    for (int round = 0; round < options_.rounds; ++round) {
      const Seconds seconds = Round();
      for (int s = 0; s < kStepCount; ++s) best[s] = std::min(best[s], seconds[s]);
    }
    return best;
  }

 private:
  Seconds Round() {
    Seconds seconds{};
    ScratchFile out(options_.write_dir);
    off_t offset = 0;
    int64_t in_chunk = 0;
    converted_ = 0;
    auto finish_chunk = [&] {
      // The last chunk is zero-padded to K images, as the writer stores it (not timed); a
      // file's only chunk holds just the images converted, as the converter sizes it.
      if (offset == 0) stored_chunk_images_ = in_chunk;
      const std::span<uint8_t> chunk(chunk_.data(),
                                     static_cast<size_t>(stored_chunk_images_ * image_bytes_));
      std::fill(chunk.begin() + in_chunk * image_bytes_, chunk.end(), 0);
      Clock clock;
      checksums_ ^= h5feed::codec::ChunkChecksum(chunk);  // kept: not optimised away
      clock.Lap(seconds[kChecksum]);
      const bool compressed = options_.compression.kind != Compression::Kind::kNone;
      if (compressed) CompressChunk(chunk, options_.compression, compressed_);
      clock.Lap(seconds[kCompress]);
      const std::span<const uint8_t> stored =
          compressed ? std::span<const uint8_t>(compressed_) : std::span<const uint8_t>(chunk);
      out.Write(stored, offset);
      offset += static_cast<off_t>(stored.size());
      clock.Lap(seconds[kWrite]);
      in_chunk = 0;
    };
    for (const std::string& name : paths_) {
      Clock clock;
      try {
        h5feed::converters::ReadFileInto(name, file_);
        clock.Lap(seconds[kRead]);
        const std::span<const uint8_t> file = file_;
        const h5feed::converters::image::DecodePlan full =
            h5feed::converters::image::PlanDecode(file, name);
        full_.resize(static_cast<size_t>(full.bytes()));
        h5feed::converters::image::Decode(file, full, name, full_);
        clock.Lap(seconds[kDecodeFull]);
        const Size scaled = h5feed::converters::image::ScaledSourceSize(
            {full.full_height, full.full_width}, options_.size,
            h5feed::converters::image::ResizeMode::kCrop);
        const h5feed::converters::image::DecodePlan plan =
            h5feed::converters::image::PlanDecode(file, name, scaled.height, scaled.width);
        decoded_.resize(static_cast<size_t>(plan.bytes()));
        h5feed::converters::image::Decode(file, plan, name, decoded_);
        clock.Lap(seconds[kDecodeScaled]);
        h5feed::converters::image::ResizeInto(
            decoded_, {plan.height, plan.width}, options_.size,
            h5feed::converters::image::ResizeMode::kCrop,
            std::span<uint8_t>(chunk_).subspan(static_cast<size_t>(in_chunk * image_bytes_),
                                               static_cast<size_t>(image_bytes_)));
        clock.Lap(seconds[kResize]);
      } catch (const h5feed::Error& e) {
        if (e.code() != h5feed::ErrorCode::kCorrupt) throw;
        continue;  // skipped, as the converter skips it
      }
      ++converted_;
      if (++in_chunk == chunk_images_) finish_chunk();
    }
    if (in_chunk > 0) finish_chunk();
    return seconds;
  }

  const Options& options_;
  std::vector<std::string> paths_;
  int64_t image_bytes_;
  int64_t chunk_images_;
  int64_t stored_chunk_images_ = 0;
  std::vector<uint8_t> chunk_;
  std::vector<uint8_t> compressed_;
  std::vector<uint8_t> file_;
  std::vector<uint8_t> full_;
  std::vector<uint8_t> decoded_;
  int64_t converted_ = 0;
  uint64_t checksums_ = 0;
};

// The first --images files of DIR in the converter's (torchvision's) order.
std::vector<std::string> ListInputs(const Options& options) {
  const h5feed::converters::ImageFolderListing listing =
      h5feed::converters::ListImageFolder(options.dir, true);
  const size_t count = options.images > 0
                           ? std::min(listing.files.size(), static_cast<size_t>(options.images))
                           : listing.files.size();
  if (count == 0) throw h5feed::Error(h5feed::ErrorCode::kNotFound, "no image in " + options.dir);
  std::vector<std::string> paths;
  for (size_t i = 0; i < count; ++i) paths.push_back(listing.root + "/" + listing.files[i].path);
  return paths;
}

void Print(const Options& options, const ConvertCosts& costs, const Seconds& best, int64_t images) {
  double steps = 0;  // the converting steps: every one after the full-size decode
  for (int s = kRead; s < kStepCount; ++s) steps += best[s];
  const double ms = 1e3 / double(costs.converted());
  const double bound = options.threads * costs.converted() / steps;
  if (options.json) {
    nlohmann::ordered_json j;
    j["images"] = images;
    j["converted"] = costs.converted();
    j["broken"] = costs.broken();
    j["size"] = std::to_string(options.size.height) + "x" + std::to_string(options.size.width);
    j["compression"] = options.compression.ToString();
    j["chunk_images"] = costs.chunk_images();
    j["rounds"] = options.rounds;
    for (int s = 0; s < kStepCount; ++s) j["ms_per_image"][kStepKeys[s]] = best[s] * ms;
    j["steps_ms_per_image"] = steps * ms;
    j["threads"] = options.threads;
    j["bound_images_per_s"] = bound;
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf(
      "%s: %lld images (%lld broken, skipped) to %dx%d, %s, chunks of %lld images; "
      "one thread, best of %d rounds\n",
      options.dir.c_str(), static_cast<long long>(images), static_cast<long long>(costs.broken()),
      options.size.height, options.size.width, options.compression.ToString().c_str(),
      static_cast<long long>(costs.chunk_images()), options.rounds);
  const std::array<std::string, kStepCount> titles = {
      "decode at full size (decode_rate's reference)",
      "read the file (open, pread, close; page cache)",
      "decode as converted (JPEG at a reduced DCT scale)",
      "fit to the size (resize, crop)",
      "checksum (XXH3) per chunk",
      "compress per chunk (" + options.compression.ToString() + ")",
      "write the stored chunk into the page cache",
  };
  std::printf("  %-52s %9s %7s\n", "step", "ms/image", "share");
  for (int s = 0; s < kStepCount; ++s) {
    if (s == kDecodeFull) {
      std::printf("  %-52s %9.3f %7s\n", titles[s].c_str(), best[s] * ms, "-");
    } else {
      std::printf("  %-52s %9.3f %6.1f%%\n", titles[s].c_str(), best[s] * ms,
                  100 * best[s] / steps);
    }
  }
  std::printf("  %-52s %9.3f %6.1f%%\n", "converting steps", steps * ms, 100.0);
  std::printf("at most %.0f images/s on %d threads with perfect scaling (%.0f on one)\n", bound,
              options.threads, costs.converted() / steps);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    std::vector<std::string> paths = ListInputs(options);
    const auto images = static_cast<int64_t>(paths.size());
    ConvertCosts costs(options, std::move(paths));
    const Seconds best = costs.Best();
    if (costs.converted() == 0) {
      throw h5feed::Error(h5feed::ErrorCode::kCorrupt, "no image of " + options.dir + " decoded");
    }
    Print(options, costs, best, images);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "convert_costs: error: %s\n", e.what());
    return 1;
  }
}
