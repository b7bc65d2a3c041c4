#pragma once
// Verifying a whole image file: what `h5feed verify` does. Every chunk is read and decoded as
// the Loader reads it (checksum, decompression, size); for h5feed files every row of the
// stored chunk table is compared with HDF5's own chunk index, and the format attributes, the
// labels against the classes, and the classes, sources and skipped lists against the counts
// are checked, and every row of every field (docs/format.md, "Fields") against its checksum. Every
// bad chunk is listed by index with its rows, rather than stopping at the first as the Loader does;
// where the file checksums each image, every bad image by row too. A file of images at their own
// size (format version 2, layout "flat") also has its layout, chunk size and encoding attributes
// checked against its images, and every JPEG image decoded whole: its header must match
// /image_shapes and libjpeg must decode it without an error or a warning, which catches damage that
// the checksums cannot (bytes rewritten with checksums to match). The report is data:
// VerificationValue names its fields once, and `h5feed verify` renders that as text or JSON,
// h5feed.verify() in Python as a dict.
//
// Verifying runs HDF5 in the calling process: HDF5 1.10.8 crashes or spins forever on some
// damaged structures, so a caller that must survive those runs it in a child process, as
// `h5feed verify` does (docs/reliability.md).
//
// Thread-safety: safe to call from many threads at once; chunks are checked in parallel
// (options.threads), HDF5's calls serialized.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/encoding_counts.h"
#include "h5feed/file_locking.h"
#include "h5feed/remote_options.h"
#include "h5feed/report_value.h"

namespace h5feed {

struct VerifyOptions {
  int threads = 0;  // worker threads for the chunks; 0 = all cores
  // The image dataset of a foreign file that holds several (LoaderOptions::images_dataset);
  // empty: 'images', else the only one of its rank.
  std::string images_dataset;
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
  // Where the image came from (its row of /sources, relative to the converted folder): the
  // file to check again or convert anew. Empty when the file records no sources.
  std::string source;
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
  // Images at their own size (format version 2, layout "flat"), counted by how each is
  // stored; images_decoded of them decoded whole by their decoder's check (JPEG images: bad
  // ones included; raw pixels need none beyond their checksum).
  bool own_size = false;
  EncodingCounts encodings;
  int64_t images_decoded = 0;
  std::vector<ImageProblem> bad_images;  // in row order; each one's chunk is in bad_chunks too
  // Of the file as a whole (attributes, labels, counts) and of its fields (the first bad row
  // of each damaged one, with its chunk).
  std::vector<std::string> problems;
  std::vector<std::string> checked;      // what was checked, one line each
  std::vector<std::string> not_checked;  // what could not be checked here, and why
  std::vector<std::string> warnings;     // about the open (the file-lock fallback)

  bool ok() const { return indexed && bad_chunks.empty() && problems.empty(); }
};

// Verifies the file at `path` (a local path or a remote URL). Damage of any kind is reported in
// the result, never thrown. Throws Error where the file's soundness cannot be judged: kNotFound
// (no such file; an HDF5 file not written by h5feed that holds no uint8 image dataset, the
// error the Loader throws for it), kInvalidArgument (not a regular file; several candidate
// image datasets, none named images), kCorrupt only for a file that is not
// an HDF5 file at all (empty, or without HDF5's signature: nothing of an HDF5 file to judge,
// the error InspectFile and the Loader throw for it), kIo (the system or the network failed to
// read it, a writer holds it locked, a remote object changed while it was read), kUnsupported
// (a newer format, a filter nothing here decodes, images that are not uint8).
VerificationReport VerifyFile(const std::string& path, const VerifyOptions& options = {});

// Every field of `report` as named values, keys in the order VerificationReport declares them,
// with "ok" (ok()) after "path": what `h5feed verify --json` writes and h5feed.verify()
// returns. `encodings` is null for a file not of images at their own size.
ReportValue VerificationValue(const VerificationReport& report);

}  // namespace h5feed
