// A small program for the reliability tests (test_corruption.py, test_many_readers.py,
// test_disk_readers.py): it
// writes files with the pixel pattern of tests/lib/loader/test_files.h, and reads one full
// epoch of a file with the Loader, checking every delivered pixel and label against that
// pattern, so a test driving it in its own process can tell "refused with an error" from
// "delivered wrong pixels" from "crashed or hung".
//
//   epoch_probe write PATH SAMPLES HxWxC CHUNK none|zstd:L|gzip:L|h5py-gzip|h5py-none
//   epoch_probe read PATH [--file-locking auto|on|off] [--threads N] [--rank R --world-size W]
//                         [--direct on|off] [--cache-mb M] [--together on]
//
// read prints "ok rows=N digest=D" and exits 0 when every row of its share (the whole file, or
// rank R's of W) came exactly once with its own pixels and label (D: an order-independent
// digest of them, test_many_readers.py computes the same from h5py's read); prints
// "error: MESSAGE" and exits 1 when the Loader refused (at Open or from Next); prints
// "WRONG: ..." and exits 3 when it delivered anything else. With --together, for several
// processes started at once: it prints "ready" once the Loader is open, starts the epoch when
// a line comes on stdin, and after "ok" prints "times START EIGHTH END BYTES": steady-clock
// seconds (one clock for every process on the machine) when the epoch started, when an eighth
// of its rows had come and when it ended, and the bytes it read from the file.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "lib/loader/test_files.h"

namespace {

using h5feed::testing::FilePixel;

constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;
constexpr int kExitWrong = 3;

// FNV-1a of one row's label and pixels; rows are summed, so the order does not matter.
uint64_t RowDigest(int64_t label, const uint8_t* pixels, int64_t bytes) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint8_t b) { h = (h ^ b) * 1099511628211ull; };
  for (int i = 0; i < 8; ++i) mix(static_cast<uint8_t>(static_cast<uint64_t>(label) >> (8 * i)));
  for (int64_t j = 0; j < bytes; ++j) mix(pixels[j]);
  return h;
}

h5feed::ImageShape ParseShape(const std::string& text) {
  h5feed::ImageShape shape;
  long long h = 0, w = 0, c = 0;
  if (std::sscanf(text.c_str(), "%lldx%lldx%lld", &h, &w, &c) != 3)
    throw std::runtime_error("shape");
  shape.height = h;
  shape.width = w;
  shape.channels = c;
  return shape;
}

int Write(int argc, char** argv) {
  if (argc != 7) return kExitUsage;
  const std::string path = argv[2];
  const int64_t samples = std::stoll(argv[3]);
  const h5feed::ImageShape shape = ParseShape(argv[4]);
  const int64_t chunk = std::stoll(argv[5]);
  const std::string kind = argv[6];
  if (kind.starts_with("h5py-")) {
    h5feed::testing::WriteH5pyFile(path, samples, shape, chunk, "NHWC", kind.substr(5));
  } else {
    h5feed::testing::WriteH5feedFile(path, samples, shape, chunk, h5feed::Compression::Parse(kind));
  }
  return 0;
}

int Read(int argc, char** argv) {
  h5feed::LoaderOptions options;
  options.batch_size = 16;
  options.cache_bytes = int64_t{4} << 20;
  options.threads = 2;
  options.on_warning = [](const std::string& w) { std::printf("warning: %s\n", w.c_str()); };
  bool together = false;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--threads") {
      options.threads = std::stoi(value);
    } else if (flag == "--rank") {
      options.shard.rank = std::stoi(value);
    } else if (flag == "--world-size") {
      options.shard.world_size = std::stoi(value);
    } else if (flag == "--direct") {
      options.direct = value == "on";
    } else if (flag == "--cache-mb") {
      options.cache_bytes = std::stoll(value) << 20;
    } else if (flag == "--together") {
      together = value == "on";
    } else if (flag == "--file-locking") {
      options.file_locking = value == "off"  ? h5feed::FileLocking::kOff
                             : value == "on" ? h5feed::FileLocking::kOn
                                             : h5feed::FileLocking::kAuto;
    } else {
      return kExitUsage;
    }
  }
  std::vector<uint8_t> seen;
  uint64_t digest = 0;
  int64_t rows = 0;
  double start = 0, eighth = 0, end = 0;
  uint64_t bytes_read = 0;
  const auto now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  try {
    h5feed::Loader loader = h5feed::Loader::Open(argv[2], options);
    const int64_t samples = loader.dataset().samples;
    const int64_t share = loader.samples_per_epoch();
    const int64_t bytes = loader.dataset().image_shape.bytes();
    seen.assign(static_cast<size_t>(samples), 0);
    if (together) {
      std::printf("ready\n");
      std::fflush(stdout);
      std::string go;
      std::getline(std::cin, go);
    }
    start = now();
    loader.SetEpoch(0);
    while (std::optional<h5feed::Batch> batch = loader.Next()) {
      for (int64_t i = 0; i < batch->size(); ++i) {
        const int64_t row = batch->indices()[static_cast<size_t>(i)];
        const int64_t label = batch->labels()[static_cast<size_t>(i)];
        const uint8_t* pixels = batch->images().data() + i * bytes;
        if (row < 0 || row >= samples || seen[static_cast<size_t>(row)]++) {
          std::printf("WRONG: row %lld delivered out of range or twice\n",
                      static_cast<long long>(row));
          return kExitWrong;
        }
        if (label != row % 7) {
          std::printf("WRONG: row %lld has label %lld\n", static_cast<long long>(row),
                      static_cast<long long>(label));
          return kExitWrong;
        }
        for (int64_t j = 0; j < bytes; ++j) {
          if (pixels[j] != FilePixel(row, j)) {
            std::printf("WRONG: row %lld byte %lld is %d, not %d\n", static_cast<long long>(row),
                        static_cast<long long>(j), pixels[j], FilePixel(row, j));
            return kExitWrong;
          }
        }
        digest += RowDigest(label, pixels, bytes);
        ++rows;
      }
      if (eighth == 0 && 8 * rows >= share) eighth = now();
    }
    end = now();
    bytes_read = loader.stats().bytes_read;
    if (rows != share) {
      std::printf("WRONG: the epoch ended after %lld of %lld rows without an error\n",
                  static_cast<long long>(rows), static_cast<long long>(share));
      return kExitWrong;
    }
  } catch (const h5feed::Error& e) {
    std::printf("error: %s\n", e.what());
    return kExitRefused;
  }
  std::printf("ok rows=%lld digest=%llu\n", static_cast<long long>(rows),
              static_cast<unsigned long long>(digest));
  if (together) {
    std::printf("times %.6f %.6f %.6f %llu\n", start, eighth, end,
                static_cast<unsigned long long>(bytes_read));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return kExitUsage;
  const std::string mode = argv[1];
  if (mode == "write") return Write(argc, argv);
  if (mode == "read") return Read(argc, argv);
  return kExitUsage;
}
