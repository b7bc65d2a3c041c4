// Fuzz target: undoing an HDF5 filter pipeline outside HDF5 (lib/index/filter_pipeline.h):
// shuffle, deflate, zstd and fletcher32 in the orders and with the filter masks files hold.
//   byte 0: bit 0 shuffle; bits 1-2 compressor (none, deflate, zstd, deflate then zstd);
//           bit 3 fletcher32, bit 4 fletcher32 first instead of last; bit 5 round trip.
//   byte 1: shuffle's element size (0: no client data); byte 2: the chunk's filter mask;
//   bytes 3-4: the chunk size for arbitrary stored bytes.
// Arbitrary stored bytes must decode or be refused with an Error; a chunk encoded here the way
// HDF5 encodes it (the masked filters skipped) must decode to itself.

#include <cstring>
#include <vector>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "codec_round_trip.h"
#include "fuzz_support.h"
#include "index/dataset_index.h"
#include "index/filter_pipeline.h"
#include "index/hdf5_filters.h"
#include "support/one_shot_compress.h"

namespace {

using h5feed::fuzzing::ByteReader;
using h5feed::index::FilterKind;
using h5feed::index::FilterStep;

std::vector<FilterStep> Pipeline(uint8_t choice, uint8_t element_bytes) {
  std::vector<FilterStep> filters;
  const bool fletcher = choice & 8;
  const bool fletcher_first = choice & 16;
  if (fletcher && fletcher_first) filters.push_back({FilterKind::kFletcher32, 3, {}});
  if (choice & 1) {
    FilterStep shuffle{FilterKind::kShuffle, 2, {}};
    if (element_bytes != 0) shuffle.client_data.push_back(element_bytes);
    filters.push_back(shuffle);
  }
  const int compressor = (choice >> 1) & 3;
  if (compressor == 1 || compressor == 3) filters.push_back({FilterKind::kDeflate, 1, {1}});
  if (compressor >= 2) filters.push_back({FilterKind::kZstd, 32015, {1}});
  if (fletcher && !fletcher_first) filters.push_back({FilterKind::kFletcher32, 3, {}});
  return filters;
}

// HDF5's shuffle (H5Zshuffle.c): byte 0 of every element, then byte 1, ...; a tail shorter
// than one element is left in place.
std::vector<uint8_t> Shuffle(std::span<const uint8_t> in, uint64_t element_bytes) {
  std::vector<uint8_t> out(in.begin(), in.end());
  if (h5feed::index::ShuffleIsNoOp(in.size(), element_bytes)) return out;
  const size_t elements = in.size() / element_bytes;
  for (size_t e = 0; e < elements; ++e) {
    for (size_t b = 0; b < element_bytes; ++b) out[b * elements + e] = in[e * element_bytes + b];
  }
  return out;
}

std::vector<uint8_t> Encode(std::span<const FilterStep> filters, uint32_t mask,
                            std::span<const uint8_t> chunk) {
  std::vector<uint8_t> bytes(chunk.begin(), chunk.end());
  for (size_t i = 0; i < filters.size(); ++i) {
    if ((mask >> i) & 1u) continue;  // HDF5 skipped this (optional) filter for the chunk
    switch (filters[i].kind) {
      case FilterKind::kShuffle:
        bytes = Shuffle(bytes, filters[i].client_data.empty() ? 1 : filters[i].client_data[0]);
        break;
      case FilterKind::kDeflate: bytes = h5feed::testing::DeflateCompress(bytes, 1); break;
      case FilterKind::kZstd: bytes = h5feed::testing::ZstdCompress(bytes, 1); break;
      case FilterKind::kFletcher32: {
        const uint32_t sum = h5feed::index::Fletcher32(bytes);
        for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(sum >> (8 * k)));
        break;
      }
      case FilterKind::kOther: break;
    }
  }
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const uint8_t choice = in.Byte();
  const std::vector<FilterStep> filters = Pipeline(choice, in.Byte());
  const uint32_t mask = in.Byte();
  const uint16_t chunk_bytes = in.U16();
  h5feed::index::DecodeScratch scratch;
  auto decode = [&](std::span<const uint8_t> stored, std::span<uint8_t> out) {
    h5feed::index::DecodeChunk(filters, mask, stored, out, scratch);
  };
  if (choice & 32) {
    const std::span<const uint8_t> chunk = in.Rest();
    const std::vector<uint8_t> stored = Encode(filters, mask, chunk);
    if (h5feed::index::CanDecode(filters)) {
      h5feed::fuzzing::CheckRoundTrip(chunk, stored, decode);
    } else {
      std::vector<uint8_t> out(chunk.size());
      h5feed::fuzzing::ExpectCleanErrorsOnly([&] { decode(stored, out); });
    }
  } else {
    std::vector<uint8_t> out(chunk_bytes);
    h5feed::fuzzing::ExpectCleanErrorsOnly([&] { decode(in.Rest(), out); });
  }
  return 0;
}
