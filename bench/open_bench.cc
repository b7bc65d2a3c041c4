// open_bench [--chunks N] [--runs R] [--walk] [--probe] [FILE]
//
// How long OpenDatasetIndex takes on an h5feed file with many chunks, beside what listing the
// chunks through HDF5 would take (--walk: H5Dget_chunk_info for every chunk, the quadratic walk
// the stored table exists to avoid, docs/format.md, "/chunk_index"). Without FILE it writes a
// temporary file of N chunks (default 20,000) of one 2x2x1 image each with the Writer. Prints one
// JSON object: chunks, open_ms_median, open_ms_min and, with --walk, walk_ms and walk_over_open;
// with --probe, what the open probe adds (LoaderOptions::open_probe, lib/probe/open_probe.h):
// probe_ms_median (the probe alone: a process start and the same open in it) and
// open_with_probe_ms_median (the probe, then the in-process open, as Loader::Open does).
// Ratios in one run, as bench/README.md asks: the absolute figures move with the machine.

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "index/dataset_index.h"
#include "probe/open_probe.h"

namespace {

double Milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double Median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The open probe as Loader::Open runs it; a warning (no probe program) makes the figure void.
void Probe(const std::string& path) {
  h5feed::probe::ProbeOpen(path, {}, [](const std::string& warning) {
    throw h5feed::Error(h5feed::ErrorCode::kNotFound, warning);
  });
}

void WriteFile(const std::string& path, int64_t chunks) {
  const h5feed::ImageShape shape{2, 2, 1};
  h5feed::WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = 1;
  options.compression = h5feed::Compression::Parse("none");
  options.overwrite = true;
  h5feed::Writer writer = h5feed::Writer::Create(path, options);
  h5feed::DatasetDescription d;
  std::vector<uint8_t> pixels(4);
  for (int64_t i = 0; i < chunks; ++i) {
    for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(i + j);
    writer.Append(writer.Encode(pixels, 1));
    d.labels.push_back(0);
    d.sources.push_back(std::to_string(i));
  }
  d.source_kind = "npy";
  writer.Finish(d);
}

// The walk h5feed never does: H5Dget_chunk_info(i) for every i, each walking the index anew.
double WalkMilliseconds(const std::string& path) {
  auto lock = h5feed::hdf5::Lock();
  const auto start = std::chrono::steady_clock::now();
  h5feed::hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5feed::hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
  h5feed::hdf5::Dataspace space(H5Dget_space(images.get()));
  hsize_t count = 0;
  H5Dget_num_chunks(images.get(), space.get(), &count);
  for (hsize_t i = 0; i < count; ++i) {
    hsize_t offset[4];
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    H5Dget_chunk_info(images.get(), space.get(), i, offset, &mask, &address, &size);
  }
  return Milliseconds(std::chrono::steady_clock::now() - start);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t chunks = 20000;
  int runs = 9;
  bool walk = false;
  bool probe = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--chunks" && i + 1 < argc) {
      chunks = std::atoll(argv[++i]);
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--walk") {
      walk = true;
    } else if (arg == "--probe") {
      probe = true;
    } else if (!arg.empty() && arg[0] != '-') {
      path = arg;
    } else {
      std::fprintf(stderr,
                   "usage: open_bench [--chunks N] [--runs R] [--walk] [--probe] "
                   "[FILE]\n");
      return 2;
    }
  }
  try {
    std::string temporary;
    if (path.empty()) {
      temporary = (std::filesystem::temp_directory_path() /
                   ("open_bench-" + std::to_string(getpid()) + ".h5"))
                      .string();
      WriteFile(temporary, chunks);
      path = temporary;
    }
    std::vector<double> times;
    int64_t opened_chunks = 0;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      h5feed::index::DatasetIndex index = h5feed::index::OpenDatasetIndex(path, {});
      times.push_back(Milliseconds(std::chrono::steady_clock::now() - start));
      opened_chunks = index.chunk_count();
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    std::printf(
        "{\"file\": \"%s\", \"chunks\": %lld, \"open_ms_median\": %.3f, \"open_ms_min\": %.3f",
        path.c_str(), static_cast<long long>(opened_chunks), median, times.front());
    if (probe) {
      std::vector<double> probed, both;
      for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        Probe(path);
        const auto probed_at = std::chrono::steady_clock::now();
        h5feed::index::OpenDatasetIndex(path, {});
        probed.push_back(Milliseconds(probed_at - start));
        both.push_back(Milliseconds(std::chrono::steady_clock::now() - start));
      }
      std::printf(", \"probe_ms_median\": %.3f, \"open_with_probe_ms_median\": %.3f",
                  Median(probed), Median(both));
    }
    if (walk) {
      const double walked = WalkMilliseconds(path);
      std::printf(", \"walk_ms\": %.1f, \"walk_over_open\": %.1f", walked, walked / median);
    }
    std::printf("}\n");
    if (!temporary.empty()) std::filesystem::remove(temporary);
  } catch (const h5feed::Error& e) {
    std::fprintf(stderr, "open_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
