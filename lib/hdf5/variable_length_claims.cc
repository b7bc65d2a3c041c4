// ReadVariableLengthClaims (variable_length_claims.h).

#include "hdf5/variable_length_claims.h"

#include <algorithm>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// A chunk of descriptors may hold more rows than the dataset (a file of fewer rows than a
// chunk of images): its buffer is bounded by this, or by the dataset's own descriptors.
constexpr uint64_t kMaxChunkBufferBytes = uint64_t{64} << 20;

// A global heap object's index (2 bytes), reference count (2) and reserved bytes (4), before
// its size (the file's sizeof_size bytes): the HDF5 file format specification, "Global Heap".
constexpr uint64_t kHeapObjectHeaderBytes = 8;

uint64_t RoundUp8(uint64_t bytes) { return (bytes + 7) / 8 * 8; }

uint32_t LittleEndian32(const uint8_t* bytes) {
  return static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
         static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
}

}  // namespace

VariableLengthClaims ReadVariableLengthClaims(hid_t dataset, int64_t rows, const std::string& name,
                                              const std::string& path) {
  const std::string where = name + " in " + path;
  VariableLengthClaims claims;
  if (rows <= 0) return claims;
  PropertyList create(H5Dget_create_plist(dataset));
  File file(H5Iget_file_id(dataset));
  PropertyList file_create(file ? H5Fget_create_plist(file.get()) : H5I_INVALID_HID);
  hsize_t chunk_rows = 0;
  size_t address_bytes = 0, length_bytes = 0;
  if (!create || !file_create || H5Pget_chunk(create.get(), 1, &chunk_rows) != 1 ||
      H5Pget_sizes(file_create.get(), &address_bytes, &length_bytes) < 0) {
    throw StackError(ReadFailureCode(), "reading the storage of " + name, path);
  }
  const uint64_t descriptor = 4 + address_bytes + 4;
  const uint64_t chunk_bytes = chunk_rows * descriptor;
  if (chunk_rows == 0 || chunk_bytes / descriptor != chunk_rows ||
      chunk_bytes > std::max(kMaxChunkBufferBytes, static_cast<uint64_t>(rows) * descriptor)) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} is stored in chunks of {} rows, more than it has ({}): the file is "
                    "damaged",
                    where, chunk_rows, rows);
  }
  std::vector<uint8_t> buffer(chunk_bytes);
  const uint64_t total_rows = static_cast<uint64_t>(rows);
  for (uint64_t first = 0; first < total_rows; first += chunk_rows) {
    const uint64_t offset[1] = {first};
    ChunkPlace place;
    if (!MeasureChunk(dataset, offset, place)) {
      throw StackError(ReadFailureCode(),
                       fmt::format("locating the chunk of row {} of {}", first, name), path);
    }
    if (!place.stored) continue;  // never written: every row empty
    const auto damaged = [&](uint32_t filter_mask) {
      return MakeError(ErrorCode::kCorrupt,
                       "the chunk of row {} of {} is stored in {} bytes (filter mask {}), not as "
                       "{} unfiltered descriptors of {} bytes: the file is damaged",
                       first, where, place.stored_bytes, filter_mask, chunk_rows, descriptor);
    };
    if (place.stored_bytes != chunk_bytes) throw damaged(0);
    uint32_t read_mask = 0;
    if (!ReadStoredChunk(dataset, offset, buffer, read_mask)) {
      throw StackError(ReadFailureCode(),
                       fmt::format("reading the chunk of row {} of {}", first, name), path);
    }
    if (read_mask != 0) throw damaged(read_mask);
    const uint64_t in_chunk = std::min<uint64_t>(chunk_rows, total_rows - first);
    for (uint64_t r = 0; r < in_chunk; ++r) {
      const uint8_t* row = buffer.data() + r * descriptor;
      const uint64_t length = LittleEndian32(row);
      claims.total += length;
      if (std::any_of(row + 4, row + 4 + address_bytes, [](uint8_t b) { return b != 0; })) {
        claims.heap_bytes += kHeapObjectHeaderBytes + length_bytes + RoundUp8(length);
      }
      if (length > claims.largest) {
        claims.largest = length;
        claims.largest_row = static_cast<int64_t>(first + r);
      }
    }
  }
  return claims;
}

}  // namespace h5feed::hdf5
