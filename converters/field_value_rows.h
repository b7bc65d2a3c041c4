#pragma once
// How many samples a conversion's group or chunk holds when their field values are large beside
// their images. The pipeline (conversion.cc) holds its groups' samples with their values, packs
// them into chunks and keeps one partial chunk; the memory budget counts chunk-sized buffers
// (chunk_buffer_reservation.h), sized by the images. Sized by the images alone, a chunk of small
// images holds thousands of samples, and with them thousands of values: 1 MiB of bytes beside an
// 8 x 8 image made a chunk of 4 MiB of pixels carry 5 GiB of values. So a group and a chunk also
// hold no more samples than C bytes of their field values, C being the chunk's bytes.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "h5feed/field.h"

namespace h5feed::converters {

// The bytes of one sample's field values: every array's row, and `value_bytes`, what its bytes
// and text values are expected to take (ConvertOptions::value_bytes).
inline int64_t FieldValueBytes(const std::vector<FieldSpec>& fields, int64_t value_bytes) {
  int64_t bytes = std::max<int64_t>(0, value_bytes);
  for (const FieldSpec& field : fields) {
    if (StoredKind(field) == FieldKind::kArray) bytes += field.row_bytes();
  }
  return bytes;
}

// The most samples whose values of `value_bytes` each fit in `chunk_bytes` (at least 1);
// unlimited without values.
inline int64_t SamplesWithinChunk(int64_t value_bytes, int64_t chunk_bytes) {
  if (value_bytes <= 0) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(1, chunk_bytes / value_bytes);
}

}  // namespace h5feed::converters
