#pragma once
// Merges the parts of a conversion in parts (conversion_part.h) into one ordinary h5feed file:
// the engine behind `h5feed merge` (docs/format.md, "Conversion in parts").
//
// The parts' stored chunks are copied as they are, never decompressed: each is read with
// HDF5's direct chunk read (H5Dread_chunk) and appended with the Writer's direct chunk write,
// in a seeded interleaving of the parts that keeps each part's own chunk order, so a run of
// chunks of the merged file comes from many parts. Their rows follow them: labels, sources,
// row checksums, fields and, for images at their own size, the image table. The chunk
// checksums are the parts' (a copied chunk's uncompressed bytes are unchanged). A part's
// fields are read whole and checked when it is opened (part_set.h).
//
// One exception, version 1 only: there, every chunk but the last holds exactly K images, and
// each part's last chunk may hold fewer. Those short chunks (one per part at most) are
// decompressed, their rows packed into chunks of K in part order, compressed again and written
// last. A version 2 chunk is C bytes whatever it holds, so all of them are copied.
//
// Written like a conversion: under a temporary name, renamed at the end, removed on failure
// or cancel (writer.h).

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/option_names.h"
#include "h5feed/report_value.h"

namespace h5feed::converters {

struct MergeProgress {
  int64_t chunks_done = 0;   // chunks of the merged file written
  int64_t chunks_total = 0;  // chunks it will have
};

struct MergeOptions {
  // The seed of the parts' interleaving. The merged file's rows are the parts' rows in
  // another order; which order follows from this seed and the parts.
  uint64_t seed = 0;
  bool overwrite = false;  // replace an existing output
  // How errors name these options (option_names.h): a front end passes its own spelling of
  // "overwrite". Empty: the C++ names.
  OptionNames option_names;
  // Called on the calling thread after each chunk written; keep it cheap.
  std::function<void(const MergeProgress&)> on_progress;
  // Set (by a SIGINT handler) to stop: MergeParts then removes its temporary file and throws
  // Error(kCancelled).
  const std::atomic<bool>* cancel = nullptr;
};

struct MergeReport {
  std::string path;
  int64_t parts = 0;
  int64_t images = 0;
  int64_t skipped = 0;        // the parts' skipped inputs, all recorded in the merged file
  int64_t chunks = 0;         // of the merged file
  int64_t copied_chunks = 0;  // copied untouched
  int64_t repacked_rows = 0;  // version 1: rows of short chunks compressed again
  uint64_t copied_bytes = 0;  // stored bytes copied untouched
  uint64_t stored_bytes = 0;  // stored bytes of the merged file's chunks
  double seconds = 0;
};

// Merges `parts` (paths, in any order; every part of one conversion exactly once) into `path`.
// Throws Error: what OpenParts throws (part_set.h: parts that do not belong together, a part
// missing or given twice), what the Writer throws (kAlreadyExists without overwrite, kNoSpace,
// kIo), kCorrupt for a chunk a part's table does not describe, kCancelled when `cancel` was
// set. The output is then not written and no temporary file is left.
MergeReport MergeParts(const std::vector<std::string>& parts, const std::string& path,
                       const MergeOptions& options);

// Every field of `report` as named values, with the rate the stored bytes were written at:
// what `h5feed merge --json` writes and h5feed.merge() returns.
ReportValue MergeValue(const MergeReport& report);

}  // namespace h5feed::converters
