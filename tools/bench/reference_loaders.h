#pragma once
// `h5feed bench sweep --compare-h5py`: the PyTorch DataLoader + h5py loaders of
// bench/reference_loaders.py, run on the sweep's input file with Debian's Python, as rows of
// the same table, so a user sees h5feed's speedup on their own data and machine.
//
// Where the script is: --reference-loaders PATH when given; else the installed copy, at
// <prefix>/share/h5feed/bench/reference_loaders.py beside an installed h5feed
// (<prefix>/bin/h5feed); else the source tree's bench/reference_loaders.py, whose path the
// build configured. Nothing else is searched, so a sweep never runs a stray copy.

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/location.h"
#include "sweep_row.h"

namespace h5feed::bench {

// The loaders run, in this order (reference_loaders.py --loader).
const std::vector<std::string>& ReferenceLoaderNames();

// The script's path, or Error(kNotFound) naming every place looked at and what to do.
// `executable` is this program's path (/proc/self/exe).
std::string LocateReferenceLoaders(const std::string& override_path, const std::string& executable);

struct ReferenceSettings {
  std::string python = "/usr/bin/python3";
  std::string script;
  std::string plugin_dir;  // h5feed's zstd HDF5 plugin folder; empty = the script finds it
  int workers = 2;
  int64_t batch = 256;
  double max_seconds = 0;  // 0 = a whole epoch
  std::string images;      // the input's image dataset; "" for the script's default
};

// Runs one loader on `file` (a URL through HDF5's read-only S3 driver, which reads http(s)://
// only) and returns its row (status "failed" with the script's error when it fails; never
// throws for a failing script). chunk_samples and compression describe the file.
SweepRow RunReferenceLoader(const ReferenceSettings& settings, const std::string& loader,
                            const Location& file, int64_t chunk_samples,
                            const std::string& compression);

}  // namespace h5feed::bench
