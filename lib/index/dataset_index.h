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
#include "h5feed/file_locking.h"
#include "h5feed/image_shape.h"
#include "h5feed/output_options.h"
#include "h5feed/remote_options.h"
#include "remote/open_file.h"

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

// Where one image of an own-size file lies in its decoded chunk, and in what form
// (docs/format.md, "Images at their own size").
struct StoredImage {
  uint64_t offset = 0;  // its first byte in the decoded chunk
  uint64_t bytes = 0;   // how many bytes it is stored in
  int32_t height = 0;
  int32_t width = 0;
  int32_t channels = 0;
  format::schema::ImageEncoding encoding = format::schema::ImageEncoding::kRaw;

  ImageShape shape() const { return {height, width, channels}; }
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

struct DatasetIndex {
  std::string path;     // the file, as messages name it (a URL without its query)
  std::string dataset;  // e.g. "/images"
  int64_t samples = 0;  // N
  // Of one sample, as H x W x C whatever the stored layout. Own-size files: the largest
  // height, width and channels of any image (each image's own are in `images`).
  ImageShape shape;
  // The order of a sample's bytes as read: NCHW for a planar dataset, else NHWC (a grayscale
  // (N, H, W) dataset is NHWC with C = 1; own-size images are stored H x W x C). The output
  // layout's enum: the same two orders.
  Layout layout = Layout::kNHWC;
  // Samples per chunk along the first dimension: K (>= 1). For kContiguous and for datasets
  // read by kHdf5Hyperslab without chunks, a block of K rows chosen for reading (about 4 MiB).
  // Own-size files: the most images any chunk holds (own_size_rows says which).
  int64_t chunk_samples = 0;
  // Own-size files (h5feed format 2, layout "flat"): each chunk is own_size_chunk_bytes bytes
  // holding the whole images own_size_rows assigns it, image n described by images[n].
  bool own_size = false;
  int64_t own_size_chunk_bytes = 0;
  ChunkRows own_size_rows;
  std::vector<StoredImage> images;
  int64_t max_side = 0;    // the converter's cap on the longer side; 0: none
  std::string encoding;    // as the converter was asked: "raw", "jpeg:90", "smart:90"
  bool is_h5feed = false;  // written by h5feed (format checked) with a stored chunk table
  ReadPath read_path = ReadPath::kStoredTable;
  // Fast path: every chunk holds K whole samples, is located in `chunks`, and every filter is
  // one h5feed undoes itself (kStoredTable, kContiguous). Otherwise blocks of K rows are read
  // through HDF5 (serialised behind the project's one HDF5 lock).
  bool direct = false;
  bool has_checksums = false;  // chunks[i].checksum is meaningful
  // XXH3-64 of each sample's NHWC bytes (h5feed files with /row_checksums: N entries), else
  // empty. The loader checks these as it copies samples, in place of the chunk checksums.
  std::vector<uint64_t> row_checksums;
  std::vector<FilterStep> filters;
  // ceil(N / K) entries when direct. kContiguous: block c at offset + c*K*sample_bytes,
  // min(K, N - c*K) rows long (the last block is short: nothing pads it).
  std::vector<ChunkLocation> chunks;
  // What HDF5 returns for pixels never written (a chunk with no storage, kHdf5Chunk).
  uint8_t fill_value = 0;

  std::vector<int64_t> labels;       // N entries (all 0 when the file has none)
  std::vector<std::string> classes;  // may be empty for foreign files

  // How the file was opened, for every later open of it (Hdf5BlockReader, verify, the
  // Loader's chunk reads): kOn (locked) or kOff (IndexOptions::file_locking was kOff, or kAuto
  // fell back on a file system that refuses locks).
  FileLocking file_locking = FileLocking::kOn;
  // The path or URL as given (a pre-signed URL's query included), and for a remote file the
  // options and the version it was opened with: every later open must find that version
  // (remote::OpenFile), so chunks are never read from another one than the index describes.
  std::string location;
  remote::RemoteOpen remote;
  uint64_t file_bytes = 0;  // the file's size when opened
  // Read over a network (hdf5::ReadOnlyFile::over_network): the open asked once, and every
  // later reader (the chunk source, the index's own checks) takes its answer from here.
  bool over_network = false;
  // What the user should know about the open (the lock fallback): for LoaderOptions::on_warning.
  std::vector<std::string> warnings;

  int64_t sample_bytes() const { return shape.bytes(); }
  // Which rows each chunk holds: K each (the last one fewer), or as own_size_rows says.
  ChunkRows chunk_rows() const {
    return own_size ? own_size_rows : ChunkRows(samples, chunk_samples);
  }
  int64_t chunk_count() const {
    return own_size ? own_size_rows.chunks() : (samples + chunk_samples - 1) / chunk_samples;
  }
  // Samples in chunk c: K, or fewer for the last one; own-size files, as many as it holds.
  int64_t samples_in_chunk(int64_t c) const {
    if (own_size) return own_size_rows.rows_in(c);
    int64_t rest = samples - c * chunk_samples;
    return rest < chunk_samples ? rest : chunk_samples;
  }
  // The first row of chunk c.
  int64_t first_row_of_chunk(int64_t c) const {
    return own_size ? own_size_rows.first_row(c) : c * chunk_samples;
  }
  // Where row `row`'s stored bytes lie in its decoded chunk: {offset, length}.
  std::pair<uint64_t, uint64_t> row_in_chunk(int64_t row) const {
    if (own_size) {
      const StoredImage& image = images[static_cast<size_t>(row)];
      return {image.offset, image.bytes};
    }
    const auto bytes = static_cast<uint64_t>(sample_bytes());
    return {static_cast<uint64_t>(row % chunk_samples) * bytes, bytes};
  }
  // Bytes of one decoded chunk.
  int64_t chunk_bytes() const {
    return own_size ? own_size_chunk_bytes : chunk_samples * sample_bytes();
  }
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
  // h5feed files: refuse a label outside [0, classes) (kCorrupt, naming the first). `h5feed
  // verify` turns this off to list every bad label itself.
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
