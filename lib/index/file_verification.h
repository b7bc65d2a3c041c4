#pragma once
// Verifies a whole image file, as `h5feed verify` does (and Python's h5feed.verify will):
// every chunk read and decoded through the loader's own ChunkReader (checksum, decompression,
// size), for h5feed files every row of the stored chunk table compared with HDF5's own chunk
// index, the format attributes, the labels against the classes, and the classes, sources and
// skipped lists against the counts. It lists every bad chunk by index with its rows, rather
// than stopping at the first as the loader does; where the file checksums each image, every bad
// image by row too (a chunk that fails its checksum is decoded again without it to find them).
// A file of images at their own size (format version 2, layout "flat") also has its layout,
// chunk size and encoding attributes checked against its images, and every JPEG image decoded
// whole (lib/decode): its header must match /image_shapes and libjpeg must decode it without
// an error or a warning, which catches damage that the checksums cannot (bytes rewritten with
// checksums to match). The report is data: `h5feed verify` renders it
// (tools/reports/verification_report.h).
//
// Chunks are checked in parallel (TBB) outside HDF5's lock, each worker holding one decoded
// chunk, one JPEG decoder and the pixels of one image (an image of more than 64 MiB of pixels
// is decoded at 1/8 scale: every entropy-coded bit is still read); the HDF5 lookups of the
// table check are serial (HDF5 1.10.8 runs one call at a time anyway).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/file_locking.h"
#include "h5feed/remote_options.h"

namespace h5feed::index {

struct VerifyOptions {
  int threads = 0;  // worker threads for the chunks; 0 = all cores
  FileLocking file_locking = FileLocking::kAuto;
  RemoteOptions remote;  // for a remote `path` (http://, https://, s3://)
  // Called as chunks are checked: (chunks checked, chunks in all). From worker threads, one
  // call at a time.
  std::function<void(int64_t done, int64_t total)> on_progress;
};

struct ChunkProblem {
  int64_t chunk = 0;
  int64_t first_row = 0;  // the chunk's rows, last included
  int64_t last_row = 0;
  std::string problem;  // "checksum mismatch (stored 0x..., computed 0x...)"
};

// One image found bad: its own checksum fails, or (own-size files) its JPEG does not decode.
struct ImageProblem {
  int64_t row = 0;
  int64_t chunk = 0;
  // "checksum mismatch (stored 0x..., computed 0x...)", "JPEG: the header says 96x128x3, the
  // file's table 97x128x3", "JPEG: Premature end of JPEG file"
  std::string problem;
};

struct VerificationReport {
  std::string path;
  // The file could be opened and indexed. When false, `problems` says why, and nothing past
  // the open was checked.
  bool indexed = false;
  bool is_h5feed = false;
  int64_t samples = 0;
  int64_t chunks = 0;
  int64_t chunk_samples = 0;
  std::string read_path;                 // how chunks were read (ToString(ReadPath))
  int64_t chunks_checked = 0;            // read and decoded (bad ones included)
  std::vector<ChunkProblem> bad_chunks;  // in chunk order
  // Images at their own size (format version 2, layout "flat"), of which jpeg_images are JPEG.
  bool own_size = false;
  int64_t jpeg_images = 0;
  int64_t jpeg_images_decoded = 0;       // decoded whole (bad ones included)
  std::vector<ImageProblem> bad_images;  // in row order; each one's chunk is in bad_chunks too
  std::vector<std::string> problems;     // of the file as a whole (attributes, labels, counts)
  std::vector<std::string> checked;      // what was checked, one line each
  std::vector<std::string> not_checked;  // what could not be checked here, and why
  std::vector<std::string> warnings;     // about the open (the file-lock fallback)

  bool ok() const { return indexed && bad_chunks.empty() && problems.empty(); }
};

// Verifies the file at `path` (a local path or a remote URL). Damage of any kind is reported in the
// result, never thrown. Throws Error: kNotFound (no such file), kInvalidArgument (not a regular
// file), kIo (the system or the network failed to read it, a writer holds it locked, a remote
// object changed while it was read), kUnsupported (a newer format, a filter nothing here decodes):
// cases where the file's soundness could not be judged.
VerificationReport VerifyFile(const std::string& path, const VerifyOptions& options);

}  // namespace h5feed::index
