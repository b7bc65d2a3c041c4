// ValidateCompression and EncodeChunk (chunk_encoding.h).

#include "format/chunk_encoding.h"

#include <string>
#include <utility>

#include "codec/checksum.h"
#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "format/require.h"

namespace h5feed::format {
namespace {

// Compresses `chunk` into into.bytes (or swaps it there when uncompressed).
void Compress(std::vector<uint8_t>& chunk, const Compression& compression, EncodedChunk& into) {
  switch (compression.kind) {
    case Compression::Kind::kZstd:
      codec::ZstdCompressInto(chunk, compression.level, into.bytes);
      break;
    case Compression::Kind::kDeflate:
      codec::DeflateCompressInto(chunk, compression.level, into.bytes);
      break;
    case Compression::Kind::kNone: std::swap(into.bytes, chunk); break;
  }
}

}  // namespace

void ValidateCompression(const Compression& compression) {
  using Kind = Compression::Kind;
  if (compression.kind == Kind::kZstd) {
    Require(compression.level >= codec::kZstdMinLevel && compression.level <= codec::kZstdMaxLevel,
            "zstd level {} is out of range 1-22", compression.level);
  } else if (compression.kind == Kind::kDeflate) {
    Require(compression.level >= codec::kDeflateMinLevel &&
                compression.level <= codec::kDeflateMaxLevel,
            "gzip level {} is out of range 1-9", compression.level);
  }
}

void EncodeChunk(std::vector<uint8_t>& chunk, int64_t images, int64_t chunk_images,
                 int64_t image_bytes, const Compression& compression, EncodedChunk& into) {
  const size_t bytes = static_cast<size_t>(image_bytes);
  Require(images >= 1 && images <= chunk_images, "a chunk holds 1 to {} images, got {}",
          chunk_images, images);
  Require(chunk.size() == static_cast<size_t>(images) * bytes,
          "a chunk of {} images needs {} bytes, got {}", images,
          static_cast<size_t>(images) * bytes, chunk.size());
  // The last chunk is stored whole, zero-padded to K images: every chunk then decompresses to
  // the same size, which is what HDF5 and every reader expect.
  chunk.resize(static_cast<size_t>(chunk_images) * bytes, 0);
  into.images = images;
  into.checksum = codec::ChunkChecksum(chunk);
  into.image_checksums.resize(static_cast<size_t>(images));
  for (size_t i = 0; i < into.image_checksums.size(); ++i) {
    into.image_checksums[i] = codec::RowChecksum({chunk.data() + i * bytes, bytes});
  }
  into.stored.clear();
  Compress(chunk, compression, into);
}

void EncodePackedChunk(std::vector<uint8_t>& chunk, std::vector<StoredImage> images,
                       int64_t chunk_bytes, const Compression& compression, EncodedChunk& into) {
  Require(!images.empty(), "a chunk holds at least one image, got none");
  uint64_t packed = 0;
  for (const StoredImage& image : images) packed += image.bytes;
  Require(packed == chunk.size() && packed <= static_cast<uint64_t>(chunk_bytes),
          "a chunk of {} images of {} bytes together was given {} bytes, in chunks of {} bytes",
          images.size(), packed, chunk.size(), chunk_bytes);
  size_t offset = 0;
  for (StoredImage& image : images) {
    image.checksum = codec::RowChecksum({chunk.data() + offset, static_cast<size_t>(image.bytes)});
    offset += static_cast<size_t>(image.bytes);
  }
  // The zero tail is stored: every chunk then decompresses to C bytes, as HDF5 expects.
  chunk.resize(static_cast<size_t>(chunk_bytes), 0);
  into.images = static_cast<int64_t>(images.size());
  into.checksum = codec::ChunkChecksum(chunk);
  into.image_checksums.clear();
  into.stored = std::move(images);
  Compress(chunk, compression, into);
}

}  // namespace h5feed::format
