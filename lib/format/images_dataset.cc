// The /images dataset of a Writer (writer_state.h): the temporary file and its empty, extendible
// /images, then each chunk appended to it as the caller encoded it (H5Dwrite_chunk), with the
// checks a chunk must pass first and its row of the chunk table (docs/format.md, "Writing
// protocol", step 3). Disk space for every write is reserved before HDF5 makes it.

#include <span>
#include <string>
#include <vector>

#include "format/require.h"
#include "format/schema.h"
#include "format/writer_state.h"
#include "h5feed/error.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/extendible_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/new_file.h"
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
  disk->Reserve(hdf5::AllocatedEnd(file.get(), temporary_path) + more, what);
}

void Writer::State::CreateImagesDataset() {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  try {
    file = hdf5::CreateNewFile(temporary_path, "creating the temporary file");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kAlreadyExists) throw;
    // This process's own temporary name exists only if another Writer here writes the same
    // output right now.
    removed = true;  // not ours: never remove it
    throw MakeError(
        ErrorCode::kAlreadyExists,
        "another writer in this process is already writing {} (its temporary file {} exists)", path,
        temporary_path);
  }
  disk.emplace(temporary_path);
  writeback.emplace(temporary_path);
  ReserveBeyondEnd(kMetadataSlack, "creating dataset /images");

  // Chunks of K whole images, or a flat byte array in chunks of C bytes.
  const std::vector<uint64_t> image_shape = {static_cast<uint64_t>(shape.height),
                                             static_cast<uint64_t>(shape.width),
                                             static_cast<uint64_t>(shape.channels)};
  images = hdf5::CreateExtendibleBytes(
      file.get(), format::schema::kImages, flat ? std::span<const uint64_t>() : image_shape,
      static_cast<uint64_t>(flat ? chunk_bytes : chunk_images), compression);
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
  // Boxes given ahead of these images could not be checked against their size until now.
  s.fields.CheckBoxesAhead(s.images_written, chunk.stored);
  const uint64_t offset[1] = {static_cast<uint64_t>(index * s.chunk_bytes)};
  const uint64_t dims[1] = {static_cast<uint64_t>((index + 1) * s.chunk_bytes)};
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
                                                      std::span<const uint64_t> dims,
                                                      std::span<const uint64_t> offset,
                                                      const std::string& where) {
  State& s = *this;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  s.ReserveBeyondEnd(chunk.bytes.size() + kMetadataSlack, "writing " + where);
  if (!hdf5::ExtendDataset(s.images.get(), dims)) {
    throw hdf5::StackError(ErrorCode::kIo, "extending /images for " + where, s.temporary_path);
  }
  const uint64_t end_before = hdf5::AllocatedEnd(s.file.get(), s.temporary_path);
  // Filter mask 0: every filter of the pipeline was applied (by Encode), exactly as HDF5
  // would have stored the chunk itself.
  if (!hdf5::WriteStoredChunk(s.images.get(), offset, chunk.bytes)) {
    throw hdf5::StackError(ErrorCode::kIo, "writing " + where, s.temporary_path);
  }
  // Where the file ended before the write, checked against the bytes: no walk of HDF5's chunk
  // index, which costs time linear in the chunks (direct_chunk.h).
  hdf5::ChunkPlace place;
  if (!hdf5::LocateNewChunk(s.images.get(), offset, end_before, chunk.bytes, place)) {
    throw hdf5::StackError(ErrorCode::kIo, "locating " + where, s.temporary_path);
  }
  if (!place.stored || place.stored_bytes != chunk.bytes.size() || place.filter_mask != 0) {
    throw MakeError(
        ErrorCode::kInternal,
        "{} in {} was stored as {} bytes with filter mask {}, not the {} bytes written; please "
        "report this",
        where, s.temporary_path, place.stored_bytes, place.filter_mask, chunk.bytes.size());
  }
  format::schema::ChunkRecord record{};
  record.checksum = chunk.checksum;
  record.address = place.address;
  record.stored_bytes = place.stored_bytes;
  record.filter_mask = place.filter_mask;
  writeback->Start(place.address, place.stored_bytes);
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
  const uint64_t dims[4] = {static_cast<uint64_t>(extent), static_cast<uint64_t>(s.shape.height),
                            static_cast<uint64_t>(s.shape.width),
                            static_cast<uint64_t>(s.shape.channels)};
  const uint64_t offset[1] = {static_cast<uint64_t>(s.images_written)};
  s.chunks.push_back(WriteChunk(chunk, dims, offset, where));
  s.image_checksums.insert(s.image_checksums.end(), chunk.image_checksums.begin(),
                           chunk.image_checksums.end());
  s.images_written = extent;
  s.last_chunk_was_short = chunk.images < s.chunk_images;
}

}  // namespace h5feed
