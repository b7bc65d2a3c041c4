#pragma once
// The parts of a conversion in parts (conversion_part.h), opened for `h5feed merge` and checked
// to belong together before anything is written: every part an h5feed file that records
// which part it is, all of one conversion (the same fingerprint, options, classes and layout),
// each part number present exactly once and each holding as many inputs as its slice.
//
// A PartSet holds every part's tables in memory: the chunk table (checked against HDF5's own,
// every row), labels, sources, row checksums and every field's values (read whole and checked,
// index/field_values.h), as the Writer holds them for the merged file.
// The parts' chunks are read through their chunk sources (source/chunk_source.h).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "h5feed/writer.h"
#include "index/dataset_index.h"

namespace h5feed::converters {

struct PartFile {
  std::string path;
  int64_t part = 0;  // K
  // Geometry, chunk table, labels, classes, row checksums and (own size) the image table,
  // checked by the reader's open.
  index::DatasetIndex index;
  std::map<std::string, std::string> attributes;  // every root attribute, as text
  std::vector<std::string> sources;
  std::vector<SkippedSource> skipped;
  std::vector<FieldColumn> fields;  // every row of each field, index.fields' order
  BoxClasses box_classes;           // the box labels' classes (convert coco), if any
};

struct PartSet {
  std::vector<PartFile> parts;  // by part number: parts[k].part == k
  // What the merged file is written with: the parts' layout, compression, chunking, fields and
  // whether it has labels.
  WriterOptions writer;
  // The parts' classes, box classes, source kind and stored order's seed; no rows.
  DatasetDescription description;
};

// Opens and checks `paths` (in any order). Throws Error: what opening an h5feed file throws
// (kNotFound, kCorrupt, kUnsupported), kInvalidArgument when a file is not a part (no
// part_index: converted without --part, or already merged), when two parts differ in what all
// parts of one conversion share (the message names both files, the attribute and both values;
// the fields and whether there are labels among them), when a part number is missing or given
// twice, or when a part holds another number of inputs than its slice.
PartSet OpenParts(const std::vector<std::string>& paths);

}  // namespace h5feed::converters
