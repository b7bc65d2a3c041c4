#pragma once
// What Writer::Finish writes beside /images (docs/format.md, "Contents of a file"): the
// datasets that describe the images (/labels, /classes, /sources, /skipped_sources,
// /skipped_reasons) and the root attributes, which come last, h5feed_format last of all, so a
// file that has it was written to the end (docs/format.md, "Writing protocol").
// Call under hdf5::Lock(); used by the Writer's one thread.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

#include "h5feed/compression.h"
#include "h5feed/writer.h"

namespace h5feed::format {

// An upper bound of the bytes WriteDescriptionDatasets and the chunk table of `chunks` rows
// add to the file: labels and image checksums (8 bytes a row each), the table (28 bytes a
// chunk), each string (its bytes and 40 of reference, heap object header and alignment),
// and 1 MiB for object headers, attributes and B-tree nodes. The Writer reserves it first.
uint64_t DescriptionBytes(const DatasetDescription& description, size_t chunks);

// Writes /labels (unless the samples have no labels: not `labelled`), /classes, /sources, the
// skipped lists and, when there is one, the box classes' table to `root`. Throws Error (kIo, or
// kNoSpace when the disk is full) naming the dataset and the file.
void WriteDescriptionDatasets(hid_t root, const DatasetDescription& description, bool labelled);

// What the root attributes say about /images.
struct ImagesWritten {
  int64_t images = 0;        // num_images
  int64_t chunk_images = 0;  // K; version 1 only
  Compression compression;
  // Version 2 files of images at their own size: their layout, with chunk_bytes resolved.
  std::optional<FlatLayout> flat;
  bool labelled = true;  // false: the `labelled` attribute says 0
};

// Writes every root attribute of docs/format.md for the file's version (1, or 2 with `flat`),
// h5feed_format last. Throws Error as above.
void WriteRootAttributes(hid_t root, const DatasetDescription& description,
                         const ImagesWritten& images);

}  // namespace h5feed::format
