#pragma once
// Converts any SampleSource into an h5feed file: the engine behind `h5feed convert` and
// `h5feed rechunk`.
//
// Samples are read in the stored order (a seeded shuffle by default) by one TBB pipeline:
//   plan groups of consecutive samples (serial) -> read, decode and store each group's samples
//   (parallel) -> pack them into chunks (serial, in order) -> compress and checksum (parallel)
//   -> append to the file (serial, in order).
// What differs between the file's layouts is the packer's (chunk_packer.h), chosen once:
//   - a source of one shape is written as a version 1 file, K images a chunk
//     (fixed_chunk_packer.h);
//   - a source of images at their own size (SampleSource::own_size()) as a version 2 "flat"
//     file (docs/format.md, "Images at their own size"): whole images, raw or JPEG-encoded as
//     the encoding asks, packed into chunks of C bytes in stored order (flat_chunk_packer.h).
// A sample's field values (SampleSource::fields()) are checked as it is read, packed with its
// image (a skipped sample's go with it) and appended right after the chunk holding it
// (Writer::AppendFields), so row n of every field is image n's. A source that is not
// labelled() gives a file without labels.
// Memory is bounded by a budget (memory_budget.h), whatever the dataset size, the images'
// dimensions and the thread count: each group in flight holds three chunk-sized buffers and its
// packer's scratch, and `2 x threads + 2` groups are in flight when at most half the budget
// holds them, fewer otherwise; the rest is what the source decodes in
// (ImageFolderOptions::memory).

#include <string>

#include "convert_options.h"
#include "convert_report.h"
#include "memory_budget.h"
#include "sample_source.h"

namespace h5feed::converters {

// Throws Error: whatever the source or the writer throws (the temporary file is removed),
// kCorrupt for a broken sample under `strict`, kInvalidArgument when no sample could be read,
// the memory budget cannot hold one chunk's buffers, an option does not suit the source or
// `part` has no input (more parts than inputs), a sample's field value does not fit its field
// (naming the sample and the field; never skipped as broken), kCancelled when `cancel` was set,
// kInternal when a source of one shape delivers a sample of another.
ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options);

}  // namespace h5feed::converters
