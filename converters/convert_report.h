#pragma once
// What a conversion (conversion.h) wrote: the file, its images and chunks, what was skipped,
// and the sizes behind its compression ratio and, for images at their own size, its chunk fill;
// and the same as a ReportValue (conversion_value.cc), which the front ends render.

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/encoding_counts.h"
#include "h5feed/field.h"
#include "h5feed/image_shape.h"
#include "h5feed/report_value.h"
#include "h5feed/skipped_source.h"
#include "h5feed/writer.h"

namespace h5feed::converters {

struct ConvertReport {
  std::string path;
  ImageShape shape;    // version 1: the images' shape; own size: the largest that may be stored
  int64_t images = 0;  // written
  int64_t chunks = 0;
  // Version 1: the images of a full chunk, K, or of the one chunk when fewer images than K were
  // written (K is chosen before the broken inputs are skipped); own size: 0.
  int64_t chunk_images = 0;
  // Own size (a version 2 file): the chunk size C, the cap applied, the encoding asked for,
  // its threshold, and the bytes of the stored images (JPEG files or pixels) before
  // compression; chunk fill = payload_bytes / (chunks x chunk_bytes).
  bool own_size = false;
  int64_t chunk_bytes = 0;
  int64_t max_side = 0;
  StoredEncoding encoding;
  int64_t smart_threshold = 0;
  EncodingCounts encodings;  // own size: `images` by how each is stored; version 1: empty
  uint64_t payload_bytes = 0;
  std::vector<SkippedSource> skipped;
  Compression compression;
  bool shuffled = false;
  uint64_t seed = 0;
  uint64_t raw_bytes = 0;     // the stored images' pixels: the sum of H x W x C
  uint64_t stored_bytes = 0;  // bytes of all stored chunks
  double seconds = 0;
  std::vector<FieldSpec> fields;  // the file's fields, in its order
  bool labelled = true;           // false: written without labels
  // What the source says of its reading (SampleSource::notes): datasets not carried as fields.
  std::vector<std::string> notes;
};

// Every field of `report` as named values, with the figures derived from them (chunk fill, the
// pixels' bytes against the stored bytes, the inputs read and their rate): what `h5feed
// convert --json` and `rechunk --json` write and h5feed.convert_*() and rechunk() return.
// The keys of images at their own size are there only for an own-size report.
ReportValue ConversionValue(const ConvertReport& report);

}  // namespace h5feed::converters
