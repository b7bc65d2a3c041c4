#pragma once
// The device's rate for one file, the ceiling a cold run is measured against: the file dropped
// from the page cache (page_cache.h), then read by `readers` threads at once, each over its
// share of the file (reader i from i/readers of the way in), in 16 MiB preads, as `readers`
// copies of `dd bs=16M` over the file's quarters would read it. One stream leaves a device
// idle between its requests (a virtual disk read one stream at half the rate of four), so the
// ceiling is what the device gives with requests in flight (docs/reader.md, "Reading from the
// disk"). The file is dropped again afterwards, as a cold run left it.
//
// Measured after the run it judges (measuring reads the file). Linux only.

#include <cstdint>
#include <string>

namespace h5feed::bench {

struct DiskRateOptions {
  int readers = 4;
  // Read at most this much of the file (each reader its share of it, from the start of its
  // part of the file), so a very large file is measured in seconds.
  uint64_t max_bytes = uint64_t{4} << 30;
};

struct DiskRate {
  double mb_per_s = 0;  // MB = 10^6 bytes
  uint64_t bytes = 0;   // read
  double seconds = 0;
  int readers = 0;
  // The drop before the read took effect (page_cache.h's threshold); when not, the rate is the
  // page cache's, not the device's.
  bool cold = false;
};

// Throws Error(kIo) when the file cannot be opened or read.
DiskRate MeasureDiskRate(const std::string& path, const DiskRateOptions& options = {});

}  // namespace h5feed::bench
