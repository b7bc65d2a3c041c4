// Fuzz target: opening an HDF5 file and reading every chunk the way the Loader does
// (lib/index/dataset_index.h, lib/index/chunk_reader.h): the file's geometry, format
// attributes, labels, classes and stored chunk table, then each chunk read through the read
// path the index chose (pread and our filter pipeline and checksum, or HDF5's own reads).
//
// The input is the whole file, written to a scratch file in /dev/shm, so no disk is touched.
// HDF5 1.10.8 parses the file's structure; a crash inside libhdf5 itself is HDF5's to fix, not
// ours (docs/fuzzing.md says how such a finding is told apart and kept), and what it is known
// to hang on is defused first (hdf5_known_hangs.h).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "hdf5_known_hangs.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace {

// Limits of the harness, not of h5feed: a file may legally describe chunks of hundreds of MiB
// and a million chunks; fuzzing reads the first chunks of files whose chunks fit in 16 MiB.
constexpr int64_t kMaxFuzzedChunkBytes = int64_t{16} << 20;
constexpr int64_t kMaxFuzzedChunks = 64;

// The input as a file with a path: HDF5 opens files by name (and resolves the name, so a
// memfd's /proc/self/fd link does not do: its target "/memfd:... (deleted)" does not exist).
// One file per process in /dev/shm (memory, no disk), rewritten for every input and removed
// at exit.
struct ScratchFile {
  ScratchFile() {
    const std::filesystem::path folder = std::filesystem::is_directory("/dev/shm")
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
    path = (folder / ("h5feed-fuzz-" + std::to_string(::getpid()) + ".h5")).string();
  }
  ~ScratchFile() { std::remove(path.c_str()); }
  std::string path;
};

const std::string& ScratchPath() {
  static const ScratchFile file;
  return file.path;
}

void WriteScratchFile(const uint8_t* data, size_t size) {
  std::ofstream out(ScratchPath(), std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) h5feed::fuzzing::Finding("cannot write the scratch file");
}

void ReadEveryChunk(const std::string& path) {
  const h5feed::index::DatasetIndex index = h5feed::index::OpenDatasetIndex(path, {});
  if (index.samples < 0 || index.chunk_samples < 1 || index.sample_bytes() < 1) {
    h5feed::fuzzing::Finding("OpenDatasetIndex accepted an impossible geometry");
  }
  if (index.labels.size() != static_cast<size_t>(index.samples)) {
    h5feed::fuzzing::Finding("the labels do not number the samples");
  }
  const std::unique_ptr<h5feed::io::RandomAccessFile> file = h5feed::io::OpenPosixFile(path);
  const h5feed::index::ChunkReader reader(index, *file, {true});
  if (reader.chunk_bytes() > kMaxFuzzedChunkBytes) return;
  std::vector<uint8_t> chunk(static_cast<size_t>(reader.chunk_bytes()));
  const int64_t chunks = std::min(index.chunk_count(), kMaxFuzzedChunks);
  for (int64_t c = 0; c < chunks; ++c) {
    // A damaged chunk is reported and the next one read, as `h5feed verify` and
    // skip_corrupt_chunks do.
    h5feed::fuzzing::ExpectCleanErrorsOnly([&] { reader.Read(c, chunk); });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> file(data, data + size);
  h5feed::fuzzing::DefuseLoopingGlobalHeaps(file);  // else HDF5 would never return
  WriteScratchFile(file.data(), file.size());
  h5feed::fuzzing::ExpectCleanErrorsOnly([&] { ReadEveryChunk(ScratchPath()); });
  return 0;
}
