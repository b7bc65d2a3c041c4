#pragma once
// Writes an h5feed file (docs/format.md) one chunk at a time: version 1 (every image at one
// size, chunks of K images) or version 2, layout "flat" (each image at its own size, as raw
// pixels or a JPEG file, packed whole into chunks of C bytes; WriterOptions::flat).
//
// The file is written under a temporary name beside the output (".NAME.partial-PID") and
// renamed over the output only by Finish(), after everything is flushed and fsync'ed; the
// format attributes a reader checks are written last. So an interrupted or failed conversion
// never leaves a file that looks valid: a Writer destroyed before Finish() removes its
// temporary file, and one killed outright leaves only a ".partial" file that readers reject.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/field.h"
#include "h5feed/image_encoding.h"
#include "h5feed/image_shape.h"
#include "h5feed/option_names.h"
#include "h5feed/skipped_source.h"

namespace h5feed {

// How the images of a flat file are stored (the `encoding` root attribute).
struct StoredEncoding {
  enum class Kind {
    kRaw,    // every image as H x W x C pixels
    kJpeg,   // every image as a JPEG file of quality `quality`
    kSmart,  // JPEG only the images of more than smart_threshold raw bytes (FFCV's "smart")
  };
  Kind kind = Kind::kRaw;
  int quality = 90;  // JPEG quality, 1-100; ignored for kRaw
  // Parses "raw", "jpeg", "jpeg:Q", "smart", "smart:Q" (Q 1-100, default 90). Throws
  // Error(kInvalidArgument) naming the accepted forms.
  static StoredEncoding Parse(std::string_view text);
  // The inverse of Parse: "raw", "jpeg:90", "smart:90".
  std::string ToString() const;
  // The chunk compression a file of this encoding gets unless asked for another: none for
  // JPEG (zstd gains almost nothing on JPEG bytes), zstd:3 (Compression's default) otherwise.
  Compression DefaultCompression() const;
  friend bool operator==(const StoredEncoding&, const StoredEncoding&) = default;
};

// The bytes a chunk aims at by default (a flat file's C, a version 1 file's K images): large
// enough that a chunk read is one efficient sequential I/O and the per-chunk costs (B-tree
// lookup, zstd frame setup) vanish, small enough that a cache of a few hundred chunks fits in
// 1-2 GiB and shuffling within cached chunks still mixes well.
inline constexpr int64_t kDefaultChunkBytes = int64_t{4} << 20;
// HDF5 stores a chunk's size in 32 bits: a chunk must stay below 4 GiB.
inline constexpr int64_t kMaxChunkBytes = (int64_t{1} << 32) - 1;

// 196,608 bytes, one 256 x 256 RGB image: in "smart" files, larger images are JPEG.
inline constexpr int64_t kDefaultSmartThreshold = int64_t{256} * 256 * 3;

// The version 2 ("flat") layout of a Writer (docs/format.md, "Images at their own size").
struct FlatLayout {
  // C, the bytes of every chunk before compression; images are packed whole into it, so it
  // must hold the largest image the writer is given. 0: 4 MiB.
  int64_t chunk_bytes = 0;
  // The cap on an image's longer side its producer applied (the `max_side` attribute; the
  // writer refuses a larger image); 0 = not capped.
  int64_t max_side = 0;
  StoredEncoding encoding;
  // With StoredEncoding::Kind::kSmart: images of more raw bytes (H * W * C) are JPEG, the
  // others raw.
  int64_t smart_threshold = kDefaultSmartThreshold;
};

// What a Writer knows of its boxes fields' coordinates (docs/format.md, "Masks and boxes").
enum class BoxCoordinates {
  // Given by a caller who may have normalized them to 0-1 (h5feed.write, a C++ caller's own
  // values): AppendFields refuses a row whose boxes all lie within 0 to 1 on an image of 4
  // pixels a side or more, since as pixels they all sit in its top-left pixel.
  kChecked,
  // Read as pixels from an input that holds them so (COCO's bbox, an h5feed file's boxes):
  // kept as they are, since a row within 0 to 1 there is a real object at the origin (COCO's
  // one-pixel [0, 0, 1, 1]), no sign of normalized boxes.
  kPixels,
};

struct WriterOptions {
  // The one shape of a version 1 file's images; ignored with `flat`.
  ImageShape image_shape;
  // Images per chunk (K). A chunk is the unit of I/O and decompression for the reader: larger
  // chunks read faster, smaller ones shuffle better for the same cache. 0 picks the K that
  // makes a chunk about 4 MiB (DefaultChunkImages).
  int64_t chunk_images = 0;
  Compression compression;
  // Replace an existing output file. Never replaced otherwise (Error kAlreadyExists).
  bool overwrite = false;
  // How errors name these options (option_names.h), "overwrite" among them: a front end passes
  // its own spelling (`--force`). Empty: "WriterOptions.overwrite".
  OptionNames option_names;
  // Set: write a version 2 file of images at their own size, in chunks of flat->chunk_bytes
  // (image_shape and chunk_images are then unused). Empty: a version 1 file.
  std::optional<FlatLayout> flat;
  // The fields the file holds beside the images, one value per image (h5feed/field.h,
  // docs/format.md "Fields"), in this order; their values come through AppendFields. Each
  // must pass CheckFieldSpec, and their names differ. Empty: a file without fields, exactly as
  // h5feed wrote before fields existed.
  std::vector<FieldSpec> fields;
  // false: the samples have no labels (self-supervised data): the file has no /labels, no
  // classes, and says so (`labelled` = 0), and readers deliver no labels for it.
  bool labelled = true;
  // kPixels only for a caller that read its boxes as pixels (BoxCoordinates): the check for
  // normalized boxes is then skipped.
  BoxCoordinates box_coordinates = BoxCoordinates::kChecked;
};

// The K that makes a chunk of `shape` images about 4 MiB, but no more than the dataset's
// `images` (a larger chunk would only hold padding, on disk and in every reader's cache); at
// least 1.
int64_t DefaultChunkImages(const ImageShape& shape,
                           int64_t images = std::numeric_limits<int64_t>::max());

// What a file that is one part of a conversion in parts records about it (docs/format.md,
// "Conversion in parts"): the part_* root attributes, which `h5feed merge` checks.
struct PartRecord {
  int64_t index = 0;   // K, 0-based
  int64_t count = 1;   // N
  int64_t inputs = 0;  // the inputs of the whole conversion, every part's together
  // Identifies the whole conversion's input (docs/format.md): the parts of one conversion
  // share it, parts of another differ.
  std::string fingerprint;
};

// What a file `h5feed merge` wrote records about its parts (merged_parts, merge_seed).
struct MergeRecord {
  int64_t parts = 0;  // how many parts it was merged from
  uint64_t seed = 0;  // the seed of the interleaving of their chunks
};

// The classes of a file's box labels, where its source names them (COCO's categories): box
// label i is class names[i], whose id in the source was source_ids[i] (docs/format.md, "Masks
// and boxes"). Both empty (a file without the table), or of one length.
struct BoxClasses {
  std::vector<std::string> names;
  std::vector<int64_t> source_ids;

  bool empty() const { return names.empty(); }
};

// Everything Finish() writes besides the pixels and the fields.
struct DatasetDescription {
  // One per stored image, in stored order; empty for a writer without labels
  // (WriterOptions::labelled false), which also takes no classes.
  std::vector<int64_t> labels;
  std::vector<std::string> sources;  // one per stored image: where it came from
  std::vector<std::string> classes;  // label i names classes[i]
  std::vector<SkippedSource> skipped;
  std::string source_kind;               // "imagefolder", "cifar", "npy", "hdf5"
  std::optional<uint64_t> shuffle_seed;  // the seed of the stored order; empty = source order
  std::optional<PartRecord> part;        // set in a part of a conversion in parts
  std::optional<MergeRecord> merged;     // set in a file merged from parts
  BoxClasses box_classes;                // written as /box_classes and /box_class_ids
};

// One image of a flat file's chunk: its row of /image_shapes, /image_bytes,
// /image_encodings and /row_checksums (its /image_offsets follow from the packing).
struct StoredImage {
  int32_t height = 0;
  int32_t width = 0;
  int32_t channels = 0;  // 1 or 3
  ImageEncoding encoding = ImageEncoding::kRaw;
  uint64_t bytes = 0;     // stored bytes: H * W * C when raw, the JPEG file's size otherwise
  uint64_t checksum = 0;  // XXH3-64 of the stored bytes; filled in by EncodePackedInto
};

// One chunk ready for the disk: compressed (or not) and checksummed.
struct EncodedChunk {
  std::vector<uint8_t> bytes;  // exactly what is stored
  uint64_t checksum = 0;       // XXH3-64 of the uncompressed chunk, zero padding included
  // Version 1: XXH3-64 of each image in it (`images` entries). Flat files: empty (the
  // checksums are in `stored`).
  std::vector<uint64_t> image_checksums;
  int64_t images = 0;  // images in it: K, or fewer for the last chunk (flat: 1 or more)
  // Flat files only: each image's record, in the order the images are packed.
  std::vector<StoredImage> stored;
};

// Thread-safety: Encode() may be called from many threads at once (it touches no HDF5 and
// keeps one compression context per thread). Append(), AppendFields(), Finish() and Abandon()
// must be called from one thread at a time, chunks and rows in stored order.
class Writer {
 public:
  // Creates the temporary file and the /images dataset. Throws Error: what CheckOutput throws
  // (kAlreadyExists when `path` exists and !options.overwrite; kInvalidArgument when `path` is
  // a folder or exists as anything but a regular file or a symbolic link: a device, a FIFO,
  // never replaced, even with overwrite), kInvalidArgument for a bad shape or chunk size, a
  // field CheckFieldSpec refuses, two fields of one name or more than 1024 fields, kIo when the
  // folder is not writable.
  static Writer Create(const std::string& path, const WriterOptions& options);

  // Throws what Create throws for `path` itself, creating and changing nothing: kNotFound when
  // its folder does not exist; kInvalidArgument when it is empty, a folder, or anything but a
  // regular file or a symbolic link; kAlreadyExists when it exists and !options.overwrite (of
  // `options`, only overwrite and option_names are read). For a front end that refuses a wrong
  // output before any work (the command line's mistake: `h5feed convert` exits 2); Create
  // checks again, as the file system may have changed since.
  static void CheckOutput(const std::string& path, const WriterOptions& options);

  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  ~Writer();  // removes the temporary file unless Finish() succeeded

  int64_t chunk_images() const;               // version 1: K; flat: 0
  const ImageShape& image_shape() const;      // version 1 only
  bool flat() const;                          // a version 2 file of images at their own size
  int64_t chunk_bytes() const;                // the bytes of a chunk before compression
  const std::string& path() const;            // the final output
  const std::string& temporary_path() const;  // where it is written until Finish()

  // Compresses and checksums `images` images (1..K) held contiguously in `pixels`
  // (images * image_shape().bytes() bytes). A short last chunk is zero-padded to K images.
  EncodedChunk Encode(std::span<const uint8_t> pixels, int64_t images) const;

  // The same for a caller that encodes chunk after chunk, reusing memory: `into` keeps its
  // buffer from one call to the next (a fresh buffer per chunk is page-faulted in anew each
  // time; docs/reliability.md, "Conversion memory"). `chunk` holds the images and is zero-padded to
  // K images in place. Uncompressed, it is not copied: it is swapped with into.bytes, and comes
  // back holding into's previous buffer (its contents unspecified).
  void EncodeInto(std::vector<uint8_t>& chunk, int64_t images, EncodedChunk& into) const;

  // Flat files: encodes one chunk of whole images packed from its first byte, in `images`
  // order, each images[i].bytes long (their sum at most chunk_bytes()). `chunk` is zero-padded
  // to chunk_bytes() in place and may be swapped with into.bytes as EncodeInto does; each
  // image's checksum is computed into into.stored. Throws Error(kInvalidArgument) for no
  // image, a size that does not add up, or a record the file's layout does not allow
  // (a raw image whose bytes are not H * W * C, a longer side above max_side, an encoding
  // that is not the one the file's `encoding` asks for).
  void EncodePackedInto(std::vector<uint8_t>& chunk, std::vector<StoredImage> images,
                        EncodedChunk& into) const;

  // Appends the next chunk of /images. Throws Error kNoSpace when the disk is full, kIo on
  // other write failures; the Writer is then unusable and its file is removed on destruction.
  void Append(const EncodedChunk& chunk);

  // Appends the values of the next rows of every field: one column per field of
  // WriterOptions::fields, in that order, each holding the same number of rows (any number:
  // a conversion may call it once per chunk it appends, before or after the chunk). Array rows
  // must be exactly row_bytes() long (bool elements 0 or 1), text rows valid UTF-8 without NUL,
  // bytes and text rows at most 2 GiB, box labels one per box, and boxes in their image's
  // pixels, not all within 0 to 1 on an image of 4 pixels a side or more unless
  // WriterOptions::box_coordinates is kPixels (docs/format.md, "Masks and boxes"); otherwise throws
  // Error(kInvalidArgument) naming the field and the row (counted from the file's first) and takes
  // nothing of the call. Boxes given ahead of their image (a flat file's row whose image is not
  // appended yet) are checked by the Append that brings it, which refuses its chunk so, taking
  // nothing of it. Memory stays bounded: each field keeps at most one HDF5 chunk of rows and writes
  // it as it fills, checksumming rows as they come. Write failures throw as Append's do.
  void AppendFields(std::span<const FieldColumn> columns);

  int64_t images_written() const;
  int64_t chunks_written() const;
  int64_t field_rows_written() const;  // the rows AppendFields took, of every field

  // Writes labels, classes, sources, skipped sources, the chunk table, the images' checksums,
  // the fields' last chunks and checksums and the attributes, closes, fsyncs and renames the
  // file to path(). description.labels (unless the writer has no labels: then none) and
  // .sources must hold images_written() entries, and every field as many rows; otherwise
  // throws Error(kInvalidArgument), the writer still usable.
  void Finish(const DatasetDescription& description);

  // Removes the temporary file now. Safe to call at any time and more than once.
  void Abandon() noexcept;

 private:
  struct State;
  explicit Writer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace h5feed
