// Writer (h5feed/writer.h): /images chunk by chunk, then the rest, attributes last, then the
// rename. docs/format.md specifies the result.

#include "h5feed/writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "format/chunk_encoding.h"
#include "format/chunk_index_dataset.h"
#include "format/description_datasets.h"
#include "format/early_writeback.h"
#include "format/image_records_datasets.h"
#include "format/partial_file.h"
#include "format/row_checksums_dataset.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "hdf5/zstd_filter.h"
#include "io/disk_reservation.h"
#include "make_error.h"

namespace h5feed {
namespace {

static_assert(format::schema::kZstdFilterId == hdf5::kZstdFilterId);

// Disk reserved beyond a chunk for what HDF5 allocates with it: a v1 B-tree node of the chunk
// index (3.6 KiB for rank 4), a 2 KiB metadata aggregation block, an object header
// continuation. 64 KiB covers them many times over.
constexpr uint64_t kMetadataSlack = uint64_t{64} << 10;
// The message is formatted only when the condition fails.
template <typename... Args>
void Require(bool condition, fmt::format_string<Args...> format, Args&&... args) {
  if (!condition) throw MakeError(ErrorCode::kInvalidArgument, format, std::forward<Args>(args)...);
}

std::string ShapeText(const StoredImage& image) {
  return std::to_string(image.height) + "x" + std::to_string(image.width) + "x" +
         std::to_string(image.channels);
}

// Whether `image` may be stored in a file of `layout` (docs/format.md, "Encodings").
void CheckStoredImage(const StoredImage& image, const FlatLayout& layout, int64_t chunk_bytes) {
  Require(image.height > 0 && image.width > 0 && (image.channels == 1 || image.channels == 3),
          "image shape {} is not positive with 1 or 3 channels", ShapeText(image));
  const uint64_t raw = uint64_t(image.height) * uint64_t(image.width) * uint64_t(image.channels);
  Require(layout.max_side == 0 || std::max(image.height, image.width) <= layout.max_side,
          "image of {} has a side longer than the file's max_side {}", ShapeText(image),
          layout.max_side);
  Require(image.bytes > 0 && image.bytes <= static_cast<uint64_t>(chunk_bytes),
          "image of {} is stored in {} bytes; an image takes 1 to chunk_bytes {}", ShapeText(image),
          image.bytes, chunk_bytes);
  bool jpeg = false;
  switch (layout.encoding.kind) {
    case StoredEncoding::Kind::kRaw: jpeg = false; break;
    case StoredEncoding::Kind::kJpeg: jpeg = true; break;
    case StoredEncoding::Kind::kSmart:
      jpeg = raw > static_cast<uint64_t>(layout.smart_threshold);
      break;
  }
  const ImageEncoding expected = jpeg ? ImageEncoding::kJpeg : ImageEncoding::kRaw;
  Require(image.encoding == expected,
          "image of {} is encoded as {}, but a file of encoding {} stores it as {}",
          ShapeText(image), (image.encoding == ImageEncoding::kJpeg ? "JPEG" : "raw pixels"),
          layout.encoding.ToString(), (jpeg ? "JPEG" : "raw pixels"));
  Require(jpeg || image.bytes == raw, "raw image of {} is stored in {} bytes, not H*W*C = {}",
          ShapeText(image), image.bytes, raw);
}

}  // namespace

struct Writer::State {
  std::string path;
  std::string temporary_path;
  ImageShape shape;
  int64_t chunk_images = 0;  // version 1
  Compression compression;
  bool overwrite = false;
  std::string overwrite_option;    // how the caller spells `overwrite` (option_names.h)
  std::optional<FlatLayout> flat;  // version 2, its chunk_bytes resolved
  int64_t chunk_bytes = 0;         // C: K x image bytes, or flat->chunk_bytes

  // HDF5 objects: used under hdf5::Lock() only.
  hdf5::File file;
  hdf5::Dataset images;
  // Space for HDF5's next writes, reserved before each is made (disk_reservation.h).
  std::optional<io::DiskReservation> disk;
  std::optional<format::EarlyWriteback> writeback;  // each chunk's bytes sent to disk early

  int64_t images_written = 0;
  std::vector<format::schema::ChunkRecord> chunks;
  std::vector<uint64_t> image_checksums;  // one per image written, for /row_checksums
  // Flat files: one per image written, for the per-image datasets (checksums included).
  std::vector<StoredImage> stored;
  std::vector<uint64_t> offsets;
  bool last_chunk_was_short = false;  // no chunk may follow a short one
  bool failed = false;                // an error left the file unusable
  bool finished = false;              // renamed onto `path`: nothing to remove
  bool removed = false;               // the temporary file is gone

  void CheckUsable(const char* operation) const {
    if (finished) {
      throw MakeError(ErrorCode::kInvalidArgument, "{} after Finish(): {} is already complete",
                      operation, path);
    }
    if (failed || removed) {
      throw MakeError(
          ErrorCode::kInvalidArgument,
          "{} on a writer of {} that failed or was abandoned earlier; start a new conversion",
          operation, path);
    }
  }

  void CreateImagesDataset();
  // Append() of a version 1 chunk (K images) and of a flat one (packed whole images).
  void AppendImages(const EncodedChunk& chunk);
  void AppendPacked(const EncodedChunk& chunk);
  // Extends /images to `dims`, writes the encoded chunk at `offset` and returns its row of
  // the chunk table. Takes hdf5::Lock().
  format::schema::ChunkRecord WriteChunk(const EncodedChunk& chunk, const hsize_t* dims,
                                         const hsize_t* offset, const std::string& where);
  void WriteEverythingButPixels(const DatasetDescription& description);
  // Reserves `more` bytes past HDF5's current end of allocation. Call under hdf5::Lock().
  void ReserveBeyondEnd(uint64_t more, std::string_view what);
};

void Writer::State::ReserveBeyondEnd(uint64_t more, std::string_view what) {
  haddr_t end = 0;
  if (H5Fget_eoa(file.get(), &end) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "finding the end of the file", temporary_path);
  }
  disk->Reserve(static_cast<uint64_t>(end) + more, what);
}

int64_t DefaultChunkImages(const ImageShape& shape, int64_t images) {
  if (shape.bytes() <= 0) return 1;
  const int64_t about_4_mib = (kDefaultChunkBytes + shape.bytes() / 2) / shape.bytes();
  return std::max<int64_t>(1, std::min(about_4_mib, images));
}

void Writer::State::CreateImagesDataset() {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const std::string what = "creating the temporary file";
  hdf5::PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  // The default (earliest) file format on purpose: HDF5 1.10.8 then indexes the chunks of an
  // extendible dataset with a version-1 B-tree; walking 20,000 chunks took 2.6 s with it and
  // 13-20 s with the latest format's extensible array. Use file locks where the file system
  // has them and go on without where it does not (NFS, Lustre).
  if (!access || H5Pset_file_locking(access.get(), true, true) < 0) {
    throw hdf5::StackError(ErrorCode::kInternal, what, temporary_path);
  }
  // EXCL: this process's own temporary name exists only if another Writer here writes the same
  // output right now.
  const hdf5::PropertyList root = hdf5::UntimedFileCreation();
  file = hdf5::File(H5Fcreate(temporary_path.c_str(), H5F_ACC_EXCL, root.get(), access.get()));
  if (!file) {
    if (hdf5::ErrorStackErrno() == EEXIST) {
      removed = true;  // not ours: never remove it
      throw MakeError(
          ErrorCode::kAlreadyExists,
          "another writer in this process is already writing {} (its temporary file {} exists)",
          path, temporary_path);
    }
    throw hdf5::StackError(ErrorCode::kIo, what, temporary_path);
  }
  disk.emplace(temporary_path);
  writeback.emplace(temporary_path);
  ReserveBeyondEnd(kMetadataSlack, "creating dataset /images");

  const hsize_t h = static_cast<hsize_t>(shape.height);
  const hsize_t w = static_cast<hsize_t>(shape.width);
  const hsize_t c = static_cast<hsize_t>(shape.channels);
  hsize_t dims[4] = {0, h, w, c};
  hsize_t max_dims[4] = {H5S_UNLIMITED, h, w, c};
  hsize_t chunk[4] = {static_cast<hsize_t>(chunk_images), h, w, c};
  int rank = 4;
  if (flat) {  // a flat byte array in chunks of C bytes
    rank = 1;
    chunk[0] = static_cast<hsize_t>(chunk_bytes);
  }
  const std::string dataset_what = "creating dataset /" + std::string(format::schema::kImages);
  hdf5::Dataspace space(H5Screate_simple(rank, dims, max_dims));
  hdf5::PropertyList create = hdf5::UntimedDatasetCreation();
  if (!space || H5Pset_chunk(create.get(), rank, chunk) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, dataset_what, temporary_path);
  }
  herr_t status = 0;
  if (compression.kind == Compression::Kind::kZstd) {
    hdf5::RegisterZstdFilter();
    // Optional, as h5py and hdf5plugin set it: a program without the filter can still open
    // the file and read everything but the pixels.
    const unsigned int level[1] = {static_cast<unsigned int>(compression.level)};
    status = H5Pset_filter(create.get(), hdf5::kZstdFilterId, H5Z_FLAG_OPTIONAL, 1, level);
  } else if (compression.kind == Compression::Kind::kDeflate) {
    status = H5Pset_deflate(create.get(), static_cast<unsigned int>(compression.level));
  }
  if (status < 0) throw hdf5::StackError(ErrorCode::kIo, dataset_what, temporary_path);
  images = hdf5::Dataset(H5Dcreate2(file.get(), format::schema::kImages, H5T_STD_U8LE, space.get(),
                                    H5P_DEFAULT, create.get(), H5P_DEFAULT));
  if (!images) throw hdf5::StackError(ErrorCode::kIo, dataset_what, temporary_path);
}

Writer Writer::Create(const std::string& path, const WriterOptions& options) {
  namespace fs = std::filesystem;
  const ImageShape& shape = options.image_shape;
  Require(!path.empty(), "the output path is empty");
  format::ValidateCompression(options.compression);
  int64_t chunk_images = 0;
  int64_t chunk_bytes = 0;
  std::optional<FlatLayout> flat = options.flat;
  if (flat) {
    if (flat->chunk_bytes == 0) flat->chunk_bytes = kDefaultChunkBytes;
    Require(flat->chunk_bytes > 0 && flat->chunk_bytes < kMaxChunkBytes,
            "chunk_bytes {} is not 1 byte to 4 GiB less a byte (HDF5 cannot store larger chunks)",
            flat->chunk_bytes);
    Require(flat->max_side >= 0, "max_side must be 0 (no cap) or positive, got {}", flat->max_side);
    Require(flat->smart_threshold >= 0, "smart_threshold must be 0 or more bytes, got {}",
            flat->smart_threshold);
    Require(flat->encoding.kind == StoredEncoding::Kind::kRaw ||
                (flat->encoding.quality >= 1 && flat->encoding.quality <= 100),
            "JPEG quality {} is out of range 1-100", flat->encoding.quality);
    chunk_bytes = flat->chunk_bytes;
  } else {
    Require(shape.height > 0 && shape.width > 0 && shape.channels > 0,
            "image shape {}x{}x{} is not positive in every dimension", shape.height, shape.width,
            shape.channels);
    Require(options.chunk_images >= 0,
            "images per chunk must be positive (or 0 for the default), got {}",
            options.chunk_images);
    chunk_images = options.chunk_images > 0 ? options.chunk_images : DefaultChunkImages(shape);
    Require(
        shape.bytes() <= kMaxChunkBytes / chunk_images,
        "{} images of {} bytes make a chunk of 4 GiB or more, which HDF5 cannot store; use fewer "
        "images per chunk",
        chunk_images, shape.bytes());
    chunk_bytes = chunk_images * shape.bytes();
  }

  std::string folder = format::FolderOf(path);
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw MakeError(ErrorCode::kNotFound,
                    "the folder {} of the output {} does not exist; create it first", folder, path);
  }
  if (fs::is_directory(path, error)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the output {} is a folder; give the path of an .h5 file", path);
  }
  if (fs::exists(fs::symlink_status(path, error)) && !options.overwrite) {
    throw MakeError(ErrorCode::kAlreadyExists,
                    "{} already exists and is left as it is; remove it or allow overwriting ({})",
                    path, NameOption(options.option_names, "WriterOptions", "overwrite"));
  }
  format::RemoveStalePartials(path);

  auto state = std::make_unique<State>();
  state->path = path;
  state->temporary_path = format::PartialPath(path, getpid());
  state->shape = flat ? ImageShape{} : shape;
  state->chunk_images = chunk_images;
  state->chunk_bytes = chunk_bytes;
  state->flat = flat;
  state->compression = options.compression;
  state->overwrite = options.overwrite;
  state->overwrite_option = NameOption(options.option_names, "WriterOptions", "overwrite");
  Writer writer(std::move(state));  // from here on, a failure removes the temporary file
  writer.state_->CreateImagesDataset();
  return writer;
}

Writer::Writer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&& other) noexcept {
  if (this != &other) {
    Abandon();
    state_ = std::move(other.state_);
  }
  return *this;
}
Writer::~Writer() { Abandon(); }

int64_t Writer::chunk_images() const { return state_->chunk_images; }
bool Writer::flat() const { return state_->flat.has_value(); }
int64_t Writer::chunk_bytes() const { return state_->chunk_bytes; }
const ImageShape& Writer::image_shape() const { return state_->shape; }
const std::string& Writer::path() const { return state_->path; }
const std::string& Writer::temporary_path() const { return state_->temporary_path; }
int64_t Writer::images_written() const { return state_->images_written; }
int64_t Writer::chunks_written() const { return static_cast<int64_t>(state_->chunks.size()); }

EncodedChunk Writer::Encode(std::span<const uint8_t> pixels, int64_t images) const {
  std::vector<uint8_t> chunk(pixels.begin(), pixels.end());
  EncodedChunk encoded;
  EncodeInto(chunk, images, encoded);
  // A compressed chunk keeps only its bytes while it waits to be appended.
  encoded.bytes.shrink_to_fit();
  return encoded;
}

void Writer::EncodeInto(std::vector<uint8_t>& chunk, int64_t images, EncodedChunk& into) const {
  const State& s = *state_;
  Require(!s.flat,
          "Encode of {}: a file of images at their own size takes packed chunks (EncodePackedInto)",
          s.path);
  format::EncodeChunk(chunk, images, s.chunk_images, s.shape.bytes(), s.compression, into);
}

void Writer::EncodePackedInto(std::vector<uint8_t>& chunk, std::vector<StoredImage> images,
                              EncodedChunk& into) const {
  const State& s = *state_;
  Require(s.flat.has_value(),
          "EncodePackedInto of {}: a file of images at one size takes chunks of K images (Encode, "
          "EncodeInto)",
          s.path);
  for (const StoredImage& image : images) CheckStoredImage(image, *s.flat, s.chunk_bytes);
  format::EncodePackedChunk(chunk, std::move(images), s.chunk_bytes, s.compression, into);
}

void Writer::State::AppendPacked(const EncodedChunk& chunk) {
  State& s = *this;
  const int64_t index = static_cast<int64_t>(s.chunks.size());
  const std::string where = "chunk " + std::to_string(index) + " of /" + format::schema::kImages;
  Require(
      chunk.images >= 1 && chunk.stored.size() == static_cast<size_t>(chunk.images),
      "{} holds {} images described by {} records; a chunk holds 1 or more, each with its record "
      "(EncodePackedInto)",
      where, chunk.images, chunk.stored.size());
  uint64_t packed = 0;
  for (const StoredImage& image : chunk.stored) packed += image.bytes;
  Require(packed <= static_cast<uint64_t>(s.chunk_bytes),
          "{} packs {} bytes of images into chunks of {}", where, packed, s.chunk_bytes);
  Require(!chunk.bytes.empty(), "{} has no bytes", where);
  if (s.compression.kind == Compression::Kind::kNone) {
    Require(chunk.bytes.size() == static_cast<size_t>(s.chunk_bytes),
            "uncompressed {} is not one whole chunk of {} bytes", where, s.chunk_bytes);
  }
  const hsize_t offset[1] = {static_cast<hsize_t>(index * s.chunk_bytes)};
  const hsize_t dims[1] = {static_cast<hsize_t>((index + 1) * s.chunk_bytes)};
  s.chunks.push_back(WriteChunk(chunk, dims, offset, where));
  uint64_t next = offset[0];
  for (const StoredImage& image : chunk.stored) {
    s.offsets.push_back(next);
    next += image.bytes;
  }
  s.stored.insert(s.stored.end(), chunk.stored.begin(), chunk.stored.end());
  s.images_written += chunk.images;
}

format::schema::ChunkRecord Writer::State::WriteChunk(const EncodedChunk& chunk,
                                                      const hsize_t* dims, const hsize_t* offset,
                                                      const std::string& where) {
  State& s = *this;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  s.ReserveBeyondEnd(chunk.bytes.size() + kMetadataSlack, "writing " + where);
  if (H5Dset_extent(s.images.get(), dims) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "extending /images for " + where, s.temporary_path);
  }
  // Filter mask 0: every filter of the pipeline was applied (by Encode), exactly as HDF5
  // would have stored the chunk itself.
  if (H5Dwrite_chunk(s.images.get(), H5P_DEFAULT, 0, offset, chunk.bytes.size(),
                     chunk.bytes.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "writing " + where, s.temporary_path);
  }
  // One B-tree lookup by coordinates (logarithmic). H5Dget_chunk_info(i) would walk the
  // index from the start on every call: quadratic, 2.6 s for 20,000 chunks on 1.10.8.
  format::schema::ChunkRecord record{};
  record.checksum = chunk.checksum;
  hsize_t stored_size = 0;
  unsigned filter_mask = 0;
  haddr_t address = HADDR_UNDEF;
  if (H5Dget_chunk_info_by_coord(s.images.get(), offset, &filter_mask, &address, &stored_size) <
      0) {
    throw hdf5::StackError(ErrorCode::kIo, "locating " + where, s.temporary_path);
  }
  if (address == HADDR_UNDEF || stored_size != chunk.bytes.size() || filter_mask != 0) {
    throw MakeError(
        ErrorCode::kInternal,
        "{} in {} was stored as {} bytes with filter mask {}, not the {} bytes written; please "
        "report this",
        where, s.temporary_path, stored_size, filter_mask, chunk.bytes.size());
  }
  record.address = address;
  record.stored_bytes = stored_size;
  record.filter_mask = filter_mask;
  writeback->Start(address, stored_size);
  return record;
}

void Writer::Append(const EncodedChunk& chunk) {
  State& s = *state_;
  s.CheckUsable("Append()");
  try {
    if (s.flat) {
      s.AppendPacked(chunk);
    } else {
      s.AppendImages(chunk);
    }
  } catch (const Error& e) {
    // A chunk the caller got wrong leaves the file as it was; anything else may not.
    if (e.code() != ErrorCode::kInvalidArgument) s.failed = true;
    throw;
  } catch (...) {
    s.failed = true;
    throw;
  }
}

void Writer::State::AppendImages(const EncodedChunk& chunk) {
  State& s = *this;
  const int64_t index = static_cast<int64_t>(s.chunks.size());
  Require(chunk.images >= 1 && chunk.images <= s.chunk_images,
          "chunk {} holds {} images; a chunk holds 1 to {}", index, chunk.images, s.chunk_images);
  Require(!s.last_chunk_was_short,
          "chunk {} follows a chunk of fewer than {} images; only the last chunk may be short",
          index, s.chunk_images);
  Require(!chunk.bytes.empty(), "chunk {} has no bytes", index);
  Require(chunk.image_checksums.size() == static_cast<size_t>(chunk.images),
          "chunk {} has {} image checksums for {} images; encode it with Encode or EncodeInto",
          index, chunk.image_checksums.size(), chunk.images);
  if (s.compression.kind == Compression::Kind::kNone) {
    Require(chunk.bytes.size() == static_cast<size_t>(s.chunk_images * s.shape.bytes()),
            "uncompressed chunk {} is not one whole chunk of {} bytes", index,
            s.chunk_images * s.shape.bytes());
  }
  const std::string where = "chunk " + std::to_string(index) + " of /" + format::schema::kImages;
  const int64_t extent = s.images_written + chunk.images;
  const hsize_t dims[4] = {static_cast<hsize_t>(extent), static_cast<hsize_t>(s.shape.height),
                           static_cast<hsize_t>(s.shape.width),
                           static_cast<hsize_t>(s.shape.channels)};
  const hsize_t offset[4] = {static_cast<hsize_t>(s.images_written), 0, 0, 0};
  s.chunks.push_back(WriteChunk(chunk, dims, offset, where));
  s.image_checksums.insert(s.image_checksums.end(), chunk.image_checksums.begin(),
                           chunk.image_checksums.end());
  s.images_written = extent;
  s.last_chunk_was_short = chunk.images < s.chunk_images;
}

void Writer::State::WriteEverythingButPixels(const DatasetDescription& d) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hid_t root = file.get();
  ReserveBeyondEnd(format::DescriptionBytes(d, chunks.size()) +
                       (flat ? format::ImageRecordBytes(stored.size()) : 0),
                   "writing labels, sources and the chunk table");
  format::WriteDescriptionDatasets(root, d, temporary_path);
  format::WriteChunkIndex(root, chunks);
  if (flat) {
    format::WriteImageRecords(root, stored, offsets, temporary_path);
    image_checksums.clear();
    for (const StoredImage& image : stored) image_checksums.push_back(image.checksum);
  }
  format::WriteRowChecksums(root, image_checksums);
  if (H5Dclose(images.release()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "closing /images", temporary_path);
  }
  format::WriteRootAttributes(root, d, {images_written, chunk_images, compression, flat});

  // H5Fclose flushes HDF5's metadata cache: a full disk often shows here, not earlier.
  if (H5Fclose(file.release()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "closing (flushing)", temporary_path);
  }
}

void Writer::Finish(const DatasetDescription& description) {
  State& s = *state_;
  s.CheckUsable("Finish()");
  const size_t n = static_cast<size_t>(s.images_written);
  Require(description.labels.size() == n,
          "{} labels for {} images written to {}; give one label per image",
          description.labels.size(), n, s.path);
  Require(description.sources.size() == n,
          "{} sources for {} images written to {}; give one source per image",
          description.sources.size(), n, s.path);
  if (!description.classes.empty()) {
    const int64_t classes = static_cast<int64_t>(description.classes.size());
    for (size_t i = 0; i < n; ++i) {
      const int64_t label = description.labels[i];
      Require(label >= 0 && label < classes,
              "label {} of image {} ({}) names no class: there are {} classes", label, i,
              description.sources[i], classes);
    }
  }
  try {
    s.WriteEverythingButPixels(description);
    s.disk->ReleaseUnused();
    s.disk.reset();
    s.writeback.reset();
    format::SyncFile(s.temporary_path);
    format::RenameIntoPlace(s.temporary_path, s.path, s.overwrite, s.overwrite_option);
  } catch (...) {
    s.failed = true;
    throw;
  }
  s.finished = true;
  // The file is complete under its name; a failure here only means the rename may not yet
  // be durable across a power cut.
  format::SyncFolder(format::FolderOf(s.path));
}

void Writer::Abandon() noexcept {
  if (!state_ || state_->finished || state_->removed) return;
  State& s = *state_;
  // Unlink before closing: a kill between the two then leaves no file behind.
  unlink(s.temporary_path.c_str());
  s.removed = true;
  s.failed = true;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  s.images.reset();
  // Succeeds after any failure h5feed reported itself (a full disk is found by the
  // reservation, before HDF5 writes); see disk_reservation.h for the one case that does not.
  s.file.reset();
  s.disk.reset();
  s.writeback.reset();
}

}  // namespace h5feed
