// LocateChunk, ReadStoredChunk and WriteStoredChunk (direct_chunk.h).

#include "hdf5/direct_chunk.h"

#include <algorithm>
#include <array>

namespace h5feed::hdf5 {
namespace {

using Coordinates = std::array<hsize_t, H5S_MAX_RANK>;

// HDF5 reads as many coordinates as the dataset has dimensions.
Coordinates Of(std::span<const uint64_t> offset) {
  Coordinates coordinates{};
  std::copy_n(offset.begin(), std::min(offset.size(), coordinates.size()), coordinates.begin());
  return coordinates;
}

}  // namespace

bool LocateChunk(hid_t dataset, std::span<const uint64_t> offset, ChunkPlace& place) {
  const Coordinates coordinates = Of(offset);
  unsigned mask = 0;
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  if (H5Dget_chunk_info_by_coord(dataset, coordinates.data(), &mask, &address, &size) < 0) {
    return false;
  }
  place.stored = address != HADDR_UNDEF;
  place.address = place.stored ? address : 0;
  place.stored_bytes = size;
  place.filter_mask = mask;
  return true;
}

bool ReadStoredChunk(hid_t dataset, std::span<const uint64_t> offset, std::span<uint8_t> bytes,
                     uint32_t& filter_mask) {
  const Coordinates coordinates = Of(offset);
  return H5Dread_chunk(dataset, H5P_DEFAULT, coordinates.data(), &filter_mask, bytes.data()) >= 0;
}

bool WriteStoredChunk(hid_t dataset, std::span<const uint64_t> offset,
                      std::span<const uint8_t> bytes) {
  const Coordinates coordinates = Of(offset);
  return H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, coordinates.data(), bytes.size(), bytes.data()) >=
         0;
}

}  // namespace h5feed::hdf5
