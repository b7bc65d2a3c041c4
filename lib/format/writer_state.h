#pragma once
// Writer::State: everything a Writer holds, shared by the files that implement it: writer.cc
// (Create, Encode, Append, Finish, Abandon) and images_dataset.cc (creating /images and
// writing its chunks).
//
// Owned by its Writer (a unique_ptr), which owns through it the temporary file's HDF5 handles,
// its disk reservation and its early writeback. Not thread-safe: the Writer's one thread uses
// it, and the HDF5 handles only under hdf5::Lock().

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/early_writeback.h"
#include "format/field_writer.h"
#include "format/schema.h"
#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "h5feed/writer.h"
#include "hdf5/handle.h"
#include "io/disk_reservation.h"
#include "make_error.h"

namespace h5feed {

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
  bool labelled = true;            // false: no /labels (WriterOptions::labelled)

  // HDF5 objects: used under hdf5::Lock() only.
  hdf5::File file;
  hdf5::Dataset images;
  // Space for HDF5's next writes, reserved before each is made (disk_reservation.h).
  std::optional<io::DiskReservation> disk;
  std::optional<format::EarlyWriteback> writeback;  // each chunk's bytes sent to disk early
  format::FieldWriter fields;  // the fields' datasets, written a chunk at a time

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

  // images_dataset.cc: creates the temporary file and its empty /images.
  void CreateImagesDataset();
  // images_dataset.cc: Append() of a version 1 chunk (K images) and of a flat one (packed
  // whole images).
  void AppendImages(const EncodedChunk& chunk);
  void AppendPacked(const EncodedChunk& chunk);
  // images_dataset.cc: extends /images to `dims`, writes the encoded chunk at `offset` (the
  // coordinates of its first element) and returns its row of the chunk table. Takes
  // hdf5::Lock().
  format::schema::ChunkRecord WriteChunk(const EncodedChunk& chunk, std::span<const uint64_t> dims,
                                         std::span<const uint64_t> offset,
                                         const std::string& where);
  // writer.cc: everything Finish() writes, then the close.
  void WriteEverythingButPixels(const DatasetDescription& description);
  // images_dataset.cc: reserves `more` bytes past HDF5's current end of allocation. Call
  // under hdf5::Lock().
  void ReserveBeyondEnd(uint64_t more, std::string_view what);
  // ReserveBeyondEnd as the field writer takes it.
  format::ReserveFunction Reserve() {
    return [this](uint64_t more, std::string_view what) { ReserveBeyondEnd(more, what); };
  }
};

}  // namespace h5feed
