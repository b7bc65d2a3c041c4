#pragma once
// Inspecting a file: what `h5feed inspect` and h5feed.inspect() do. Reads only metadata, the
// labels, the small string datasets and an own-size file's per-image table: never the pixels,
// and never HDF5's chunk index to find chunks (chunk counts come from the shapes: walking the
// index is quadratic in HDF5 1.10.8, docs/format.md, "/chunk_index").
//
// HDF5 1.10.8 crashes or hangs on some damaged files while it parses their structure, and
// inspect is run on files nobody trusts yet: so by default the same open is first done in a
// separate process, the open probe (docs/reliability.md, "Open probe"), and a crash or a hang
// there is an Error here instead of the end of the caller.
//
// Thread-safety: safe to call from many threads at once (HDF5 calls are serialized inside).

#include <functional>
#include <string>

#include "h5feed/file_summary.h"
#include "h5feed/remote_options.h"

namespace h5feed {

struct InspectOptions {
  // Open the file in the open probe first (above). Off: one process, unprotected; a probe
  // that cannot be found or started is reported through on_warning and the file is
  // inspected unprotected.
  bool open_probe = true;
  // An open in the probe that makes no progress for this long (seconds) is taken for HDF5
  // spinning on a damaged structure. Opening reads metadata only; the limit leaves room for
  // a slow network file system or a remote file's retries. Another value with open_probe
  // false is refused (Error(kInvalidArgument)), not ignored.
  int open_probe_stall_seconds = 60;
  // For a remote `path` (http://, https://, s3://): as the Loader reads it (its spill folder
  // too). The open probe reads with the same options, and a refusal it meets (a refused
  // connection after its retries, a 404) is the one thrown here: the retries run once.
  RemoteOptions remote;
  // Called with what a person should know that is no fault of the file (the open probe could
  // not be run, so the file was opened unprotected). None: such warnings are dropped. Called
  // on the calling thread, before InspectFile returns.
  std::function<void(const std::string&)> on_warning;
};

// Summarizes the file at `path` (a local path, or an http://, https:// or s3:// URL). Throws
// Error: kInvalidArgument (options out of range, `path` not a regular file), kNotFound (no
// such file or object), kCorrupt (not an HDF5 file, truncated or damaged; HDF5 crashed or
// hung on it in the open probe), kIo (it cannot be read: the system or the network failed,
// access was refused), kCancelled (the open probe was interrupted: Ctrl-C).
FileSummary InspectFile(const std::string& path, const InspectOptions& options = {});

}  // namespace h5feed
