// decode_rate DIR [--threads N] [--json]
//
// The decode-only ceiling of a conversion: reads every image file under DIR (recursively, the
// extensions torchvision's ImageFolder accepts, in any case) into memory, then decodes each at
// full size with h5feed's decoders (image_decoder.h) on N threads and prints
//   decoded N images in S s: X images/s (threads T)
// or, with --json, one line {"images":..,"failed":..,"seconds":..,"images_per_s":..,"threads":..}.
// Only decoding is timed: the files are read before the clock starts and each thread reuses
// one output buffer, so the figure is what TurboJPEG / libspng / libwebp deliver on this
// machine, the rate `h5feed convert` is measured against (bench/README.md).

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/error.h"
#include "image/image_decoder.h"

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 9> kExtensions = {".jpg", ".jpeg", ".png",  ".ppm", ".bmp",
                                                         ".pgm", ".tif",  ".tiff", ".webp"};

bool IsImageFile(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end();
}

std::vector<fs::path> ListImages(const fs::path& root) {
  if (!fs::is_directory(root)) {
    throw h5feed::Error(h5feed::ErrorCode::kNotFound,
                        "'" + root.string() + "' is not a folder; pass an image folder");
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink)) {
    if (entry.is_regular_file() && IsImageFile(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw h5feed::Error(h5feed::ErrorCode::kIo, "cannot read '" + path.string() + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Options {
  fs::path dir;
  int threads = 0;
  bool json = false;
};

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      options.threads = std::atoi(argv[++i]);
      if (options.threads < 1) {
        throw h5feed::Error(
            h5feed::ErrorCode::kInvalidArgument,
            "--threads wants a positive number, got '" + std::string(argv[i]) + "'");
      }
    } else if (options.dir.empty() && !arg.starts_with("--")) {
      options.dir = arg;
    } else {
      throw h5feed::Error(h5feed::ErrorCode::kInvalidArgument,
                          "unexpected argument '" + std::string(arg) +
                              "'; usage: decode_rate DIR [--threads N] [--json]");
    }
  }
  if (options.dir.empty()) {
    throw h5feed::Error(h5feed::ErrorCode::kInvalidArgument,
                        "usage: decode_rate DIR [--threads N] [--json]");
  }
  if (options.threads == 0) options.threads = tbb::info::default_concurrency();
  return options;
}

int Run(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  const std::vector<fs::path> paths = ListImages(options.dir);
  if (paths.empty()) {
    throw h5feed::Error(h5feed::ErrorCode::kNotFound,
                        "no image files under '" + options.dir.string() + "'");
  }
  std::vector<std::vector<uint8_t>> files;
  files.reserve(paths.size());
  for (const fs::path& path : paths) files.push_back(ReadFile(path));

  std::atomic<int64_t> failed{0};
  tbb::task_arena arena(options.threads);
  const auto start = std::chrono::steady_clock::now();
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, files.size()),
                      [&](const tbb::blocked_range<size_t>& range) {
                        thread_local std::vector<uint8_t> rgb;
                        for (size_t i = range.begin(); i != range.end(); ++i) {
                          const std::string name = paths[i].string();
                          try {
                            const h5feed::converters::image::DecodePlan plan =
                                h5feed::converters::image::PlanDecode(files[i], name);
                            if (rgb.size() < static_cast<size_t>(plan.bytes())) {
                              rgb.resize(static_cast<size_t>(plan.bytes()));
                            }
                            h5feed::converters::image::Decode(
                                files[i], plan, name,
                                std::span<uint8_t>(rgb.data(), static_cast<size_t>(plan.bytes())));
                          } catch (const h5feed::Error& e) {
                            if (e.code() != h5feed::ErrorCode::kCorrupt) throw;
                            failed.fetch_add(1, std::memory_order_relaxed);
                          }
                        }
                      });
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const int64_t decoded = static_cast<int64_t>(files.size()) - failed.load();
  const double rate = static_cast<double>(files.size()) / seconds;
  if (options.json) {
    std::printf(
        "{\"images\":%lld,\"failed\":%lld,\"seconds\":%.6f,\"images_per_s\":%.2f,"
        "\"threads\":%d}\n",
        static_cast<long long>(decoded), static_cast<long long>(failed.load()), seconds, rate,
        options.threads);
  } else {
    std::printf("decoded %lld images in %.3f s: %.1f images/s (threads %d)\n",
                static_cast<long long>(decoded), seconds, rate, options.threads);
    if (failed.load() > 0) {
      std::printf("%lld files could not be decoded (corrupt) and are counted in the rate\n",
                  static_cast<long long>(failed.load()));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "decode_rate: " << e.what() << '\n';
    return 1;
  }
}
