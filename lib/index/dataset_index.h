#pragma once
// What the reader learns about an image dataset when it opens a file, without walking HDF5's
// chunk index (quadratic in HDF5 1.10.8): the geometry, the labels and classes, and where
// every chunk of images lies, so chunks can be read with pread outside HDF5's lock.
//
// A DatasetIndex is plain data: it holds no open HDF5 object, may be copied, and is safe to
// read from many threads at once.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "chunk_rows.h"
#include "format/schema.h"
#include "h5feed/field.h"
#include "h5feed/file_locking.h"
#include "h5feed/image_shape.h"
#include "h5feed/location.h"
#include "h5feed/output_options.h"
#include "h5feed/remote_options.h"
#include "h5feed/stored_layout.h"
#include "row_locator.h"

namespace h5feed::index {

// One step of the dataset's HDF5 filter pipeline, in the order HDF5 applied them on write.
enum class FilterKind { kZstd, kDeflate, kShuffle, kFletcher32, kOther };

struct FilterStep {
  FilterKind kind = FilterKind::kOther;
  int id = 0;  // the HDF5 filter id (for messages)
  // The filter's client data as stored in the file (shuffle: [0] = element size in bytes;
  // zstd, deflate: [0] = level).
  std::vector<unsigned> client_data;
};

struct ChunkLocation {
  uint64_t address = 0;       // byte offset in the file
  uint64_t stored_bytes = 0;  // size on disk
  uint32_t filter_mask = 0;   // bit i set: filter i was not applied to this chunk
  uint64_t checksum = 0;      // XXH3-64 of the uncompressed chunk (h5feed files only)
};

// How ChunkReader gets the bytes of chunk c (rows c*K .. c*K + K - 1).
enum class ReadPath {
  // h5feed file: pread at the stored table's address, filters undone outside HDF5's lock.
  kStoredTable,
  // Foreign chunked dataset whose chunks hold whole samples and whose filters h5feed undoes:
  // H5Dread_chunk under the HDF5 lock (one B-tree lookup), filters undone outside it.
  kHdf5Chunk,
  // Foreign contiguous dataset: pread of K rows at the dataset's offset; no lock, no filters.
  kContiguous,
  // Anything else (chunks that cut samples, filters h5feed does not undo such as lzf, compact
  // or external storage): H5Dread of K rows under the HDF5 lock, HDF5 decoding.
  kHdf5Hyperslab,
};

const char* ToString(ReadPath path);

// Whether chunks read this way are read with pread at known addresses, outside HDF5
// (kStoredTable, kContiguous): their byte ranges can be fetched ahead, and a chunk that fails
// its check can be fetched again. The others go through HDF5, whose byte ranges are its own.
bool ReadsByAddress(ReadPath path);

struct DatasetIndex {
  std::string path;     // the file, as messages name it (a URL without its query)
  std::string dataset;  // e.g. "/images"
  int64_t samples = 0;  // N
  // Of one sample, as H x W x C whatever the stored layout; where each row has its own shape,
  // the largest height, width and channels of any (rows.largest()).
  ImageShape shape;
  // The order of a sample's bytes as read: NCHW for a planar dataset, else NHWC (a grayscale
  // (N, H, W) dataset is NHWC with C = 1; images at their own size are stored H x W x C). The
  // output layout's enum: the same two orders.
  Layout layout = Layout::kNHWC;
  // How the file stores its images, as `h5feed inspect` names it: what messages and reports
  // say. The reading asks `rows`.
  StoredLayout stored_layout = StoredLayout::kNHWC;
  // Where every row lies in its chunk, and which rows each chunk holds.
  RowLocator rows;
  // Rows per chunk along the first dimension: K (>= 1). For kContiguous and for datasets read
  // by kHdf5Hyperslab without chunks, a block of K rows chosen for reading (about 4 MiB).
  // Where chunks hold whole images of a number of bytes, the most rows any chunk holds.
  int64_t chunk_samples = 0;
  // The chunks' extent along the dataset's first dimension in HDF5's chunk shape: chunk c's
  // coordinate there is c x chunk_extent (K rows, or C bytes for images at their own size).
  int64_t chunk_extent = 0;
  int64_t max_side = 0;    // h5feed files of images at their own size: the converter's cap; 0: none
  std::string encoding;    // ... and their encoding as asked: "raw", "jpeg:90", "smart:90"
  bool is_h5feed = false;  // written by h5feed (format checked) with a stored chunk table
  ReadPath read_path = ReadPath::kStoredTable;
  bool has_checksums = false;  // chunks[i].checksum is meaningful
  // XXH3-64 of each sample's NHWC bytes (h5feed files with /row_checksums: N entries), else
  // empty. The loader checks these as it copies samples, in place of the chunk checksums.
  std::vector<uint64_t> row_checksums;
  std::vector<FilterStep> filters;
  // One entry per chunk when ReadsByAddress(read_path). kContiguous: block c at offset +
  // c*K*sample_bytes, min(K, N - c*K) rows long (the last block is short: nothing pads it).
  std::vector<ChunkLocation> chunks;
  // What HDF5 returns for pixels never written (a chunk with no storage, kHdf5Chunk).
  uint8_t fill_value = 0;

  // N entries; a foreign file without labels has all 0. An h5feed file whose samples have no
  // labels (`labelled` false) has none.
  std::vector<int64_t> labels;
  std::vector<std::string> classes;  // may be empty for foreign files
  // False for an h5feed file written without labels (docs/format.md, the root attribute
  // `labelled`): `labels` is then empty, and readers deliver no labels, never invented ones.
  bool labelled = true;
  // The fields of an h5feed file, in its order (docs/format.md, "Fields"), read and checked at
  // open from metadata alone; their values are read by ReadFieldColumn (field_values.h) or by
  // the loader. Empty for a foreign file.
  std::vector<FieldSpec> fields;

  // How the file was opened, for every later open of it (Hdf5BlockReader, verify, the
  // Loader's chunk reads): kOn (locked) or kOff (IndexOptions::file_locking was kOff, or kAuto
  // fell back on a file system that refuses locks).
  FileLocking file_locking = FileLocking::kOn;
  // The path or URL as given, with for a remote file the options and the version it was
  // opened with: every later open must find that version, so chunks are never read from
  // another one than the index describes. `path` is its display().
  Location location;
  uint64_t file_bytes = 0;  // the file's size when opened
  // What the user should know about the open (the lock fallback): for LoaderOptions::on_warning.
  std::vector<std::string> warnings;

  // Of one image: the largest any row may have (`shape`), the size of each for one size.
  int64_t sample_bytes() const { return shape.bytes(); }
  // Of every image, each at its own shape (rows.at(row).shape): what the file's pixels are.
  uint64_t pixel_bytes() const;
  // Whether every image has one height, width and channel count (then `shape`): a file of one
  // image size, or of images at their own size that happen to share one (h5feed.write without
  // size= writes such a file from CIFAR). Readers read the latter as the former where no crop
  // from each image's own size is asked (loader/reading_plan.h).
  bool holds_one_size() const;
  // Which rows each chunk holds (rows.chunks()), and their conveniences.
  const ChunkRows& chunk_rows() const { return rows.chunks(); }
  int64_t chunk_count() const { return rows.chunks().chunks(); }
  int64_t samples_in_chunk(int64_t c) const { return rows.chunks().rows_in(c); }
  int64_t first_row_of_chunk(int64_t c) const { return rows.chunks().first_row(c); }
  // Bytes of one decoded chunk.
  int64_t chunk_bytes() const { return rows.chunk_bytes(); }
};

struct IndexOptions {
  // The image dataset's path in the file ("images" or "/images"). "" = "images" if present,
  // else the only 4-D uint8 dataset (else the only 3-D one, read as N x H x W x 1).
  std::string images;
  std::string labels;  // "" = "labels" if present, else all 0
  // How many stored chunk-table entries to check against HDF5 (H5Dget_chunk_info_by_coord) at
  // open, spread evenly from the first chunk to the last; a repacked file whose table no
  // longer matches is refused. 0 skips the check (the checksums still catch a stale table at
  // the first read of a moved chunk). At least 2 is advised: first and last. A remote file
  // checks the first at most (HDF5 1.10.8 walks its chunk index up to the entry, a round trip
  // per block of it).
  int verify_table_entries = 4;
  // HDF5's shared file lock (h5feed/file_locking.h): kAuto falls back to no lock where the
  // file system refuses locks, and records a warning in DatasetIndex::warnings.
  FileLocking file_locking = FileLocking::kAuto;
  // h5feed files: refuse a label outside [0, classes) (kCorrupt, naming the first), and labels
  // or class names that do not match their checksums (format/values_checksum.h). `h5feed
  // verify` turns this off to list every bad label and mismatch itself.
  bool check_labels = true;
  // For a remote `path` (http://, https://, s3://): connections, retries, timeouts.
  RemoteOptions remote;
};

// Opens `path` (a local path or a remote URL) and builds its index; the file is closed again
// before returning. Throws Error:
// kNotFound (no file, no dataset: the message lists the datasets found), kCorrupt (not HDF5,
// truncated, a table that does not match the file, an interrupted conversion, labels that do
// not number N), kUnsupported (wrong dtype or rank, a version newer than this reader, a
// filter that neither h5feed nor this HDF5 can decode), kInvalidArgument (several image
// datasets and none named); for a remote file also what its reads throw (http_file.h).
DatasetIndex OpenDatasetIndex(const std::string& path, const IndexOptions& options);

}  // namespace h5feed::index
