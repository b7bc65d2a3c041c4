#pragma once
// The names of h5feed's on-disk format, versions 1 and 2. docs/format.md is the specification;
// this header is its single copy in code. A reader checks kFormatName and kFormatVersion on open.

#include <cstdint>

#include "h5feed/writer.h"

namespace h5feed::format::schema {

inline constexpr char kFormatName[] = "h5feed";
// The newest version this code reads. Files of images at one size are written as version 1
// (their layout is unchanged, so older readers keep reading them); files of images at their own
// size ("flat" layout) as version 2, which version-1 readers refuse.
inline constexpr int32_t kFormatVersion = 2;
inline constexpr int32_t kFixedSizeFormatVersion = 1;
inline constexpr int32_t kOwnSizeFormatVersion = 2;

// Datasets (all at the root group).
inline constexpr char kImages[] = "images";           // uint8 (N, H, W, C), chunks (K, H, W, C)
inline constexpr char kLabels[] = "labels";           // int64 (N)
inline constexpr char kClasses[] = "classes";         // UTF-8 strings (num_classes)
inline constexpr char kSources[] = "sources";         // UTF-8 strings (N)
inline constexpr char kChunkIndex[] = "chunk_index";  // compound (num_chunks), see ChunkRecord
// uint64 (N): XXH3-64 of each image. Optional: files written before it existed lack it.
inline constexpr char kRowChecksums[] = "row_checksums";
inline constexpr char kSkippedSources[] = "skipped_sources";  // UTF-8 strings (S)
inline constexpr char kSkippedReasons[] = "skipped_reasons";  // UTF-8 strings (S)
// A file whose box labels' classes have names (DatasetDescription::box_classes) only.
inline constexpr char kBoxClasses[] = "box_classes";     // UTF-8 strings (number of classes)
inline constexpr char kBoxClassIds[] = "box_class_ids";  // int64 (number of classes)

// Own-size ("flat") files only: /images is uint8 (chunks x C), chunks (C), and each image is
// described by one row of each of these (docs/format.md, "Images at their own size").
inline constexpr char kImageShapes[] = "image_shapes";    // int32 (N, 3): height, width, channels
inline constexpr char kImageOffsets[] = "image_offsets";  // uint64 (N): first byte in /images
inline constexpr char kImageBytes[] = "image_bytes";      // uint64 (N): bytes stored
inline constexpr char kImageEncodings[] = "image_encodings";  // uint8 (N): ImageEncoding

// Fields (docs/format.md, "Fields"): each field is a dataset at the root named after it, with
// the attribute kAttrField; its checksums are the dataset kFieldChecksums/NAME.
inline constexpr char kFieldChecksums[] = "field_checksums";  // group of uint64 (N) datasets
// Group of chunk tables: for each array field NAME, the dataset NAME, one ChunkRecord per chunk
// of /NAME (as /chunk_index is of /images), so that its chunks are read by address. Optional:
// files written before it existed lack it, and their fields are read through HDF5.
inline constexpr char kFieldChunkIndex[] = "field_chunk_index";
inline constexpr char kAttrField[] = "h5feed_field";  // string on a field: "array", "bytes", "text"
// String on a mask: its element type, "uint8" or "uint16" (rows of own-size masks are bytes).
inline constexpr char kAttrMaskType[] = "h5feed_mask_type";
// String on a mask of images at their own size whose rows are zstd frames: "zstd"
// (format/mask_rows.h); absent, the rows are the values.
inline constexpr char kAttrMaskEncoding[] = "h5feed_mask_encoding";
inline constexpr char kMaskEncodingZstd[] = "zstd";
// String on box labels and box values: the name of the boxes field they belong to.
inline constexpr char kAttrBoxes[] = "h5feed_boxes";
// String on box values: their element type, numpy's name ("int32", "float32", ...).
inline constexpr char kAttrBoxValueType[] = "h5feed_box_value_type";
// A field's chunks: K rows in a version 1 file (in step with /images); in a flat file, about
// this many bytes of an array's rows, or this many rows of bytes or text, no more than N.
inline constexpr int64_t kFlatFieldChunkBytes = int64_t{1} << 20;
inline constexpr int64_t kFlatFieldChunkRows = 4096;
// The most fields a file holds: their names fit the root group's object header.
inline constexpr int64_t kMaxFields = 1024;

// Root attributes. Written last, so a file without them is an interrupted conversion.
inline constexpr char kAttrFormat[] = "h5feed_format";                 // string "h5feed"
inline constexpr char kAttrFormatVersion[] = "h5feed_format_version";  // int32
inline constexpr char kAttrLayout[] = "layout";                        // string "NHWC"
inline constexpr char kAttrNumImages[] = "num_images";                 // int64
inline constexpr char kAttrNumClasses[] = "num_classes";               // int64
inline constexpr char kAttrNumSkipped[] = "num_skipped";               // int64
inline constexpr char kAttrChunkImages[] = "chunk_images";             // int64 (K); fixed size
inline constexpr char kAttrChunkBytes[] = "chunk_bytes";  // int64 (C); flat layout only
inline constexpr char kAttrMaxSide[] = "max_side";        // int64, 0 = not capped; flat only
inline constexpr char kAttrEncoding[] = "encoding";       // "raw", "jpeg:Q", "smart:Q"; flat only
inline constexpr char kAttrSmartThreshold[] = "smart_threshold";  // int64 bytes; "smart:Q" only
inline constexpr char kAttrCompression[] = "compression";   // string: "none", "zstd:3", "gzip:6"
inline constexpr char kAttrShuffled[] = "shuffled";         // int32: 1 = stored in a seeded order
inline constexpr char kAttrShuffleSeed[] = "shuffle_seed";  // uint64 (0 when not shuffled)
inline constexpr char kAttrSourceKind[] = "source_kind";    // "imagefolder", "cifar", "npy", "hdf5"
inline constexpr char kAttrCreatedBy[] = "created_by";      // "h5feed 0.1.0"
// Files with fields only: the fields' names in the writer's order (1-D, UTF-8 strings).
inline constexpr char kAttrFields[] = "fields";
// Files whose samples have no labels only: int32 0 (no /labels). Absent or 1: labelled.
inline constexpr char kAttrLabelled[] = "labelled";
// A part of a conversion in parts only (docs/format.md, "Conversion in parts").
inline constexpr char kAttrPartIndex[] = "part_index";                // int64 K, from 0
inline constexpr char kAttrPartCount[] = "part_count";                // int64 N
inline constexpr char kAttrConversionInputs[] = "conversion_inputs";  // int64, all parts'
inline constexpr char kAttrPartFingerprint[] = "part_fingerprint";    // string, 16 hex digits
// A file merged from parts only.
inline constexpr char kAttrMergedParts[] = "merged_parts";  // int64 N
inline constexpr char kAttrMergeSeed[] = "merge_seed";      // uint64

// Attribute of /chunk_index, /row_checksums and the field chunk tables.
inline constexpr char kAttrChecksum[] = "checksum";  // string "xxh3-64"
// Attribute of /labels, /classes, /sources and the skipped lists: the XXH3-64 of their values
// (format/values_checksum.h).
inline constexpr char kAttrValuesChecksum[] = "xxh3_64";  // uint64

inline constexpr char kLayoutNHWC[] = "NHWC";  // version 1: (N, H, W, C), one size
inline constexpr char kLayoutFlat[] = "flat";  // version 2: each image at its own size

// How one image of a flat file is stored (/image_encodings): the public enum of
// h5feed/image_encoding.h, whose values are the stored bytes (0 raw, 1 JPEG).
using ImageEncoding = ::h5feed::ImageEncoding;

// The zstd filter's id in the HDF5 filter registry; cd_values[0] is the level.
inline constexpr int kZstdFilterId = 32015;

// One row of /chunk_index (or of a field's chunk table): where chunk i of /images (of the
// field) lies in the file and how to check it.
struct ChunkRecord {
  uint64_t address;       // byte offset of the stored chunk in the file
  uint64_t stored_bytes;  // its size on disk (compressed size when filtered)
  uint32_t filter_mask;   // HDF5's mask: bit i set = filter i was NOT applied to this chunk
  uint64_t checksum;      // XXH3-64 of the uncompressed chunk, zero padding included
};

}  // namespace h5feed::format::schema
