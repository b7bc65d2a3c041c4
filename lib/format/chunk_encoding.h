#pragma once
// How the Writer turns the images of one chunk (version 1; flat files: whole images packed
// into C bytes) into the bytes stored for it (docs/format.md,
// "/images" and "Checksums"): padded with zeros to K images, checksummed (the chunk, and each
// image), compressed with the file's compression. Pure computation, no HDF5: the converters
// run it on many threads at once (Writer::Encode is const and thread-safe).

#include <cstdint>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/writer.h"

namespace h5feed::format {

// Throws Error(kInvalidArgument) for a zstd level outside 1-22 or a gzip level outside 1-9.
void ValidateCompression(const Compression& compression);

// Encodes `chunk`, the pixels of `images` images of `image_bytes` each (1 <= images <=
// chunk_images), into `into`, reusing its buffers; `chunk` is padded in place and may be
// swapped into `into` (no copy when uncompressed). Throws Error(kInvalidArgument) for a count
// or a size that does not fit.
void EncodeChunk(std::vector<uint8_t>& chunk, int64_t images, int64_t chunk_images,
                 int64_t image_bytes, const Compression& compression, EncodedChunk& into);

// Flat files: encodes `chunk`, whole images packed from its first byte (`images` records, in
// order), into `into`: zero-padded in place to chunk_bytes, the chunk and each image's stored
// bytes checksummed (into.stored takes `images`, their checksums filled in), compressed. Throws
// Error(kInvalidArgument) for no image or sizes that do not add up to chunk.size() or exceed
// chunk_bytes.
void EncodePackedChunk(std::vector<uint8_t>& chunk, std::vector<StoredImage> images,
                       int64_t chunk_bytes, const Compression& compression, EncodedChunk& into);

}  // namespace h5feed::format
