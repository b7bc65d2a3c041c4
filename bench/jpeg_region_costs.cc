// jpeg_region_costs DIR_OR_FILES... [--crop 224] [--rounds R] [--json]: what decoding a stored
// JPEG costs per image on one thread when a RandomResizedCrop box (scale uniform in [0.08, 1],
// ratio log-uniform in [3/4, 4/3], the whole image when ten tries fail) resized to crop x crop
// is all that is needed: (a) the whole image at full scale, (b) only the box's rows and iMCU
// columns, (c) those at the coarsest DCT scale that keeps crop x crop (lib/decode). Every
// variant decodes the same boxes; the rounds interleave a b c d e and keep each one's best.
// (d) decodes only the image's last row: every row above is entropy-decoded and discarded
// (jpeg_skip_scanlines), unless the JPEG's restart markers let it be cut to its last MCU row
// (lib/decode/jpeg_restart_cut.h). (e) is TurboJPEG's own whole-image decode (tjDecompress2 with
// PIL's accurate IDCT), the reference for what the machine decodes, which (a) should match.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <turbojpeg.h>

#include "decode/jpeg_info.h"
#include "decode/jpeg_region_decoder.h"
#include "whole_number_arg.h"

namespace {

using h5feed::decode::JpegInfo;
using h5feed::decode::JpegRegionDecoder;
using h5feed::decode::PixelBox;
using h5feed::decode::RegionOptions;

struct Options {
  std::vector<std::string> paths;
  int64_t crop = 224;
  int rounds = 3;
  bool json = false;
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "jpeg_region_costs: %s\nusage: jpeg_region_costs DIR_OR_FILES... [--crop 224] "
               "[--rounds R] [--json]\n",
               problem.c_str());
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--crop" || arg == "--rounds") {
      if (++i >= argc) Usage(arg + " needs a value");
      const long value = WholeNumberArg(arg, argv[i], 100'000, Usage);
      if (arg == "--crop") {
        options.crop = value;
      } else {
        options.rounds = static_cast<int>(value);
      }
    } else if (arg == "--json") {
      options.json = true;
    } else if (!arg.starts_with("-")) {
      options.paths.push_back(arg);
    } else {
      Usage("unexpected argument '" + arg + "'");
    }
  }
  if (options.paths.empty()) Usage("no JPEG file or folder given");
  return options;
}

struct Image {
  std::vector<uint8_t> bytes;
  JpegInfo info;
};

// The files given, and every .jpg / .jpeg under the folders given, read into memory.
std::vector<Image> LoadImages(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> files;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      files.emplace_back(path);
      continue;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".JPG")) {
        files.push_back(entry.path());
      }
    }
  }
  std::vector<Image> images;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    Image image{{std::istreambuf_iterator<char>(in), {}}, {}};
    image.info = h5feed::decode::ReadJpegInfo(image.bytes);
    images.push_back(std::move(image));
  }
  if (images.empty()) Usage("no JPEG found");
  return images;
}

// torchvision's RandomResizedCrop.get_params, with its whole-image fallback.
PixelBox RandomBox(const JpegInfo& info, std::mt19937_64& random) {
  std::uniform_real_distribution<double> scale(0.08, 1.0);
  std::uniform_real_distribution<double> log_ratio(std::log(3.0 / 4), std::log(4.0 / 3));
  const double area = static_cast<double>(info.height * info.width);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * scale(random);
    const double ratio = std::exp(log_ratio(random));
    const auto w = static_cast<int64_t>(std::lround(std::sqrt(target * ratio)));
    const auto h = static_cast<int64_t>(std::lround(std::sqrt(target / ratio)));
    if (w > 0 && h > 0 && w <= info.width && h <= info.height) {
      const int64_t top = std::uniform_int_distribution<int64_t>(0, info.height - h)(random);
      const int64_t left = std::uniform_int_distribution<int64_t>(0, info.width - w)(random);
      return {top, left, h, w};
    }
  }
  return {0, 0, info.height, info.width};
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  const std::vector<Image> images = LoadImages(options.paths);
  const RegionOptions variants[] = {{.scale = false, .crop = false},
                                    {.scale = false, .crop = true},
                                    {.scale = true, .crop = true},
                                    {.scale = false, .crop = true}};
  const char* names[] = {"full decode", "region", "region + scale", "last row only", "TurboJPEG"};
  constexpr int kVariants = 5;
  constexpr int kTurbo = 4;
  double best[kVariants] = {1e300, 1e300, 1e300, 1e300, 1e300};
  JpegRegionDecoder decoder;
  tjhandle turbo = tjInitDecompress();
  std::vector<uint8_t> dest;
  std::mt19937_64 random(0);
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<PixelBox> boxes;
    for (const Image& image : images) boxes.push_back(RandomBox(image.info, random));
    for (int v = 0; v < kVariants; ++v) {
      const auto start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < images.size(); ++i) {
        const JpegInfo& info = images[i].info;
        if (v == kTurbo) {
          dest.resize(static_cast<size_t>(info.height * info.width * info.channels));
          if (tjDecompress2(turbo, images[i].bytes.data(), images[i].bytes.size(), dest.data(),
                            static_cast<int>(info.width), 0, static_cast<int>(info.height),
                            info.channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT) != 0) {
            Usage(std::string("TurboJPEG: ") + tjGetErrorStr2(turbo));
          }
          continue;
        }
        const PixelBox box = v == 3 ? PixelBox{info.height - 1, 0, 1, info.width} : boxes[i];
        decoder.Decode(images[i].bytes, info, box, options.crop, options.crop, dest, variants[v]);
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      best[v] = std::min(best[v], took.count());
    }
  }
  tjDestroy(turbo);
  const double n = static_cast<double>(images.size());
  if (options.json) {
    std::printf(
        "{\"images\": %zu, \"rounds\": %d, \"crop\": %lld, \"full_per_s\": %.1f, "
        "\"region_per_s\": %.1f, \"region_scale_per_s\": %.1f, \"region_over_full\": %.3f, "
        "\"region_scale_over_full\": %.3f, \"entropy_share\": %.3f, \"turbojpeg_per_s\": %.1f}\n",
        images.size(), options.rounds, static_cast<long long>(options.crop), n / best[0],
        n / best[1], n / best[2], best[0] / best[1], best[0] / best[2], best[3] / best[0],
        n / best[kTurbo]);
    return 0;
  }
  std::printf("%zu JPEGs, RandomResizedCrop boxes to %lldx%lld, best of %d rounds, one thread\n",
              images.size(), static_cast<long long>(options.crop),
              static_cast<long long>(options.crop), options.rounds);
  for (int v = 0; v < kVariants; ++v) {
    std::printf("  %-16s %10.1f images/s\n", names[v], n / best[v]);
  }
  std::printf("  speed-up b/a %.2fx, c/a %.2fx, a/e %.2fx; d takes %.2f of a's time\n",
              best[0] / best[1], best[0] / best[2], best[kTurbo] / best[0], best[3] / best[0]);
  return 0;
}
