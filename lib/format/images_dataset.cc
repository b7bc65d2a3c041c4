// The /images dataset of a Writer (writer_state.h): the temporary file and its empty, extendible
// /images, then each chunk appended to it as the caller encoded it (H5Dwrite_chunk), with the
// checks a chunk must pass first and its row of the chunk table (docs/format.md, "Writing
// protocol", step 3). Disk space for every write is reserved before HDF5 makes it.

#include <cerrno>
#include <string>

#include "format/require.h"
#include "format/schema.h"
#include "format/writer_state.h"
#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "hdf5/zstd_filter.h"
#include "make_error.h"

namespace h5feed {
namespace {

static_assert(format::schema::kZstdFilterId == hdf5::kZstdFilterId);

// Disk reserved beyond a chunk for what HDF5 allocates with it: a v1 B-tree node of the chunk
// index (3.6 KiB for rank 4), a 2 KiB metadata aggregation block, an object header
// continuation. 64 KiB covers them many times over.
constexpr uint64_t kMetadataSlack = uint64_t{64} << 10;

}  // namespace

void Writer::State::ReserveBeyondEnd(uint64_t more, std::string_view what) {
  haddr_t end = 0;
  if (H5Fget_eoa(file.get(), &end) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, "finding the end of the file", temporary_path);
  }
  disk->Reserve(static_cast<uint64_t>(end) + more, what);
}

void Writer::State::CreateImagesDataset() {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const std::string what = "creating the temporary file";
  hdf5::PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  // The default (earliest) file format on purpose: HDF5 1.10.8 then indexes the chunks of an
  // extendible dataset with a version-1 B-tree, which it walks several times faster than the
  // latest format's extensible array (docs/format.md, "HDF5 file-format level"). Use file
  // locks where the file system has them and go on without where it does not (NFS, Lustre).
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

void Writer::State::AppendPacked(const EncodedChunk& chunk) {
  State& s = *this;
  const int64_t index = static_cast<int64_t>(s.chunks.size());
  const std::string where = "chunk " + std::to_string(index) + " of /" + format::schema::kImages;
  format::Require(
      chunk.images >= 1 && chunk.stored.size() == static_cast<size_t>(chunk.images),
      "{} holds {} images described by {} records; a chunk holds 1 or more, each with its record "
      "(EncodePackedInto)",
      where, chunk.images, chunk.stored.size());
  uint64_t packed = 0;
  for (const StoredImage& image : chunk.stored) packed += image.bytes;
  format::Require(packed <= static_cast<uint64_t>(s.chunk_bytes),
                  "{} packs {} bytes of images into chunks of {}", where, packed, s.chunk_bytes);
  format::Require(!chunk.bytes.empty(), "{} has no bytes", where);
  if (s.compression.kind == Compression::Kind::kNone) {
    format::Require(chunk.bytes.size() == static_cast<size_t>(s.chunk_bytes),
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
  // index from the start on every call: quadratic in the chunks (docs/format.md, "`/chunk_index`:
  // the chunk table").
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

void Writer::State::AppendImages(const EncodedChunk& chunk) {
  State& s = *this;
  const int64_t index = static_cast<int64_t>(s.chunks.size());
  format::Require(chunk.images >= 1 && chunk.images <= s.chunk_images,
                  "chunk {} holds {} images; a chunk holds 1 to {}", index, chunk.images,
                  s.chunk_images);
  format::Require(
      !s.last_chunk_was_short,
      "chunk {} follows a chunk of fewer than {} images; only the last chunk may be short", index,
      s.chunk_images);
  format::Require(!chunk.bytes.empty(), "chunk {} has no bytes", index);
  format::Require(
      chunk.image_checksums.size() == static_cast<size_t>(chunk.images),
      "chunk {} has {} image checksums for {} images; encode it with Encode or EncodeInto", index,
      chunk.image_checksums.size(), chunk.images);
  if (s.compression.kind == Compression::Kind::kNone) {
    format::Require(chunk.bytes.size() == static_cast<size_t>(s.chunk_images * s.shape.bytes()),
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

}  // namespace h5feed
