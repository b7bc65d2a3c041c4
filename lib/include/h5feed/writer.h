#pragma once
// Writes an h5feed file (on-disk format version 1, docs/format.md) one chunk at a time.
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
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/image_shape.h"

namespace h5feed {

struct WriterOptions {
  ImageShape image_shape;
  // Images per chunk (K). A chunk is the unit of I/O and decompression for the reader: larger
  // chunks read faster, smaller ones shuffle better for the same cache. 0 picks the K that
  // makes a chunk about 4 MiB (DefaultChunkImages).
  int64_t chunk_images = 0;
  Compression compression;
  // Replace an existing output file. Never replaced otherwise (Error kAlreadyExists).
  bool overwrite = false;
};

// The K that makes a chunk of `shape` images about 4 MiB, but no more than the dataset's
// `images` (a larger chunk would only hold padding, on disk and in every reader's cache); at
// least 1.
int64_t DefaultChunkImages(const ImageShape& shape,
                           int64_t images = std::numeric_limits<int64_t>::max());

struct SkippedSource {
  std::string source;  // the path (or name) of the input that was skipped
  std::string reason;  // why, in words
};

// Everything Finish() writes besides the pixels.
struct DatasetDescription {
  std::vector<int64_t> labels;       // one per stored image, in stored order
  std::vector<std::string> sources;  // one per stored image: where it came from
  std::vector<std::string> classes;  // label i names classes[i]
  std::vector<SkippedSource> skipped;
  std::string source_kind;               // "imagefolder", "cifar", "npy", "hdf5"
  std::optional<uint64_t> shuffle_seed;  // the seed of the stored order; empty = source order
};

// One chunk ready for the disk: compressed (or not) and checksummed.
struct EncodedChunk {
  std::vector<uint8_t> bytes;  // exactly what is stored
  uint64_t checksum = 0;       // XXH3-64 of the uncompressed chunk, zero padding included
  std::vector<uint64_t> image_checksums;  // XXH3-64 of each image in it (`images` entries)
  int64_t images = 0;                     // images in it: K, or fewer for the last chunk
};

// Thread-safety: Encode() may be called from many threads at once (it touches no HDF5 and
// keeps one compression context per thread). Append(), Finish() and Abandon() must be called
// from one thread at a time, chunks in stored order.
class Writer {
 public:
  // Creates the temporary file and the /images dataset. Throws Error: kAlreadyExists when
  // `path` exists and !options.overwrite, kInvalidArgument for a bad shape or chunk size,
  // kIo when the folder is not writable.
  static Writer Create(const std::string& path, const WriterOptions& options);

  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  ~Writer();  // removes the temporary file unless Finish() succeeded

  int64_t chunk_images() const;
  const ImageShape& image_shape() const;
  const std::string& path() const;            // the final output
  const std::string& temporary_path() const;  // where it is written until Finish()

  // Compresses and checksums `images` images (1..K) held contiguously in `pixels`
  // (images * image_shape().bytes() bytes). A short last chunk is zero-padded to K images.
  EncodedChunk Encode(std::span<const uint8_t> pixels, int64_t images) const;

  // The same for a caller that encodes chunk after chunk, reusing memory: `into` keeps its
  // buffer from one call to the next (fresh 4 MiB buffers per chunk made most of an
  // uncompressed conversion's page faults). `chunk` holds the images and is zero-padded to K
  // images in place. Uncompressed, it is not copied: it is swapped with into.bytes, and comes
  // back holding into's previous buffer (its contents unspecified).
  void EncodeInto(std::vector<uint8_t>& chunk, int64_t images, EncodedChunk& into) const;

  // Appends the next chunk of /images. Throws Error kNoSpace when the disk is full, kIo on
  // other write failures; the Writer is then unusable and its file is removed on destruction.
  void Append(const EncodedChunk& chunk);

  int64_t images_written() const;
  int64_t chunks_written() const;

  // Writes labels, classes, sources, skipped sources, the chunk table, the images' checksums
  // and the attributes, closes, fsyncs and renames the file to path(). description.labels and
  // .sources must hold images_written() entries.
  void Finish(const DatasetDescription& description);

  // Removes the temporary file now. Safe to call at any time and more than once.
  void Abandon() noexcept;

 private:
  struct State;
  explicit Writer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace h5feed
