// LocateChunk, MeasureChunk, NewAllocation, LocateNewChunk, ReadStoredChunk and
// WriteStoredChunk (direct_chunk.h).

#include "hdf5/direct_chunk.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {
namespace {

using Coordinates = std::array<hsize_t, H5S_MAX_RANK>;

// HDF5 reads as many coordinates as the dataset has dimensions.
Coordinates Of(std::span<const uint64_t> offset) {
  Coordinates coordinates{};
  std::copy_n(offset.begin(), std::min(offset.size(), coordinates.size()), coordinates.begin());
  return coordinates;
}

// The file's descriptor where its driver has one (sec2, the default), else -1.
int FileDescriptor(hid_t file) {
  const PropertyList access(H5Fget_access_plist(file));
  void* handle = nullptr;
  if (!access || H5Pget_driver(access.get()) != H5FD_SEC2 ||
      H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr) {
    return -1;
  }
  return *static_cast<int*>(handle);
}

// Whether the file behind `fd` holds `expected` at `address`: read back a piece at a time.
bool HoldsAt(int fd, uint64_t address, std::span<const uint8_t> expected) {
  if (fd < 0) return false;
  std::array<uint8_t, 64 * 1024> piece;
  for (size_t done = 0; done < expected.size();) {
    const size_t want = std::min(piece.size(), expected.size() - done);
    const ssize_t got = pread(fd, piece.data(), want, static_cast<off_t>(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || !std::equal(piece.begin(), piece.begin() + got, expected.begin() + done)) {
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
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

bool MeasureChunk(hid_t dataset, std::span<const uint64_t> offset, ChunkPlace& place) {
  const Coordinates coordinates = Of(offset);
  hsize_t bytes = 0;
  if (H5Dget_chunk_storage_size(dataset, coordinates.data(), &bytes) < 0) {
    // The search fails for a chunk never written as for a damaged index: the walk tells which.
    H5Eclear2(H5E_DEFAULT);
    if (!LocateChunk(dataset, offset, place)) return false;
    place.address = 0;
    place.filter_mask = 0;
    return true;
  }
  place = ChunkPlace{.stored = true, .stored_bytes = bytes};
  return true;
}

bool CountStoredChunks(hid_t dataset, uint64_t& count) {
  const Dataspace space(H5Dget_space(dataset));
  hsize_t chunks = 0;
  if (!space || H5Dget_num_chunks(dataset, space.get(), &chunks) < 0) return false;
  count = chunks;
  return true;
}

bool NewAllocation(hid_t file, uint64_t end, uint64_t bytes, uint64_t& address) {
  const PropertyList access(H5Fget_access_plist(file));
  hsize_t threshold = 1, alignment = 1;
  if (!access || H5Pget_alignment(access.get(), &threshold, &alignment) < 0) return false;
  address = end;
  if (alignment > 1 && bytes >= threshold) address = (end + alignment - 1) / alignment * alignment;
  return true;
}

bool LocateNewChunk(hid_t dataset, std::span<const uint64_t> offset, uint64_t end_before,
                    std::span<const uint8_t> stored, ChunkPlace& place) {
  std::vector<uint8_t> read_back;
  uint32_t filter_mask = 0;
  if (stored.empty()) {
    ChunkPlace measured;
    if (!MeasureChunk(dataset, offset, measured)) return false;
    if (!measured.stored) {  // never written (the caller's check says so)
      place = measured;
      return true;
    }
    read_back.resize(measured.stored_bytes);
    if (!ReadStoredChunk(dataset, offset, read_back, filter_mask)) return false;
    stored = read_back;
  }
  const File file(H5Iget_file_id(dataset));
  uint64_t address = 0;
  const bool found = file && !stored.empty() &&
                     !std::all_of(stored.begin(), stored.end(), [](uint8_t b) { return b == 0; }) &&
                     NewAllocation(file.get(), end_before, stored.size(), address) &&
                     HoldsAt(FileDescriptor(file.get()), address, stored);
  if (!found) {
    H5Eclear2(H5E_DEFAULT);
    return LocateChunk(dataset, offset, place);
  }
  place = ChunkPlace{.stored = true,
                     .address = address,
                     .stored_bytes = stored.size(),
                     .filter_mask = filter_mask};
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
