#include "index/chunk_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "codec/checksum.h"
#include "h5feed/error.h"
#include "index/filter_pipeline.h"
#include "index/hdf5_block_reader.h"
#include "index/scratch_buffer.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// Every scratch buffer one thread needs: stored (compressed) bytes, planar (NCHW) rows before
// they are interleaved, and the decoder's stages. One per thread, whatever the reader.
struct ThreadScratch {
  ScratchBuffer stored;
  ScratchBuffer planar;
  DecodeScratch decode;
};

ThreadScratch& Scratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

std::string Hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A chunk stored without filters is the chunk itself: exactly its decoded size.
void CheckUnfilteredSize(uint64_t stored_bytes, uint64_t decoded_bytes) {
  if (stored_bytes != decoded_bytes) {
    throw MakeError(ErrorCode::kCorrupt,
                    "the stored chunk holds {} bytes; unfiltered it must hold {}", stored_bytes,
                    decoded_bytes);
  }
}

constexpr char kDamagedAdvice[] = ": the file is damaged; h5feed verify lists every bad chunk";

}  // namespace

ChunkReader::ChunkReader(const DatasetIndex& index, const io::RandomAccessFile& file,
                         ChunkReaderOptions options)
    : index_(index), file_(file), options_(options) {
  if (index_.chunk_samples < 1 || index_.sample_bytes() < 1) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the index of {} has no chunk geometry; build it with OpenDatasetIndex",
                    index_.path);
  }
  if (ReadsByAddress(index_.read_path) &&
      static_cast<int64_t>(index_.chunks.size()) != index_.chunk_count()) {
    throw MakeError(ErrorCode::kInvalidArgument, "the index of {} locates {} chunks of {}",
                    index_.path, index_.chunks.size(), index_.chunk_count());
  }
  if (index_.read_path == ReadPath::kHdf5Chunk || index_.read_path == ReadPath::kHdf5Hyperslab) {
    hdf5_ = std::make_shared<const Hdf5BlockReader>(index_);
  }
}

int64_t ChunkReader::chunk_bytes() const { return index_.chunk_bytes(); }

std::string ChunkReader::Describe(int64_t chunk) const {
  const int64_t first = index_.first_row_of_chunk(chunk);
  const int64_t last = first + std::max<int64_t>(index_.samples_in_chunk(chunk), 1) - 1;
  return "chunk " + std::to_string(chunk) + " of " + index_.dataset + " in " + index_.path +
         " (rows " + std::to_string(first) + "-" + std::to_string(last) + ")";
}

template <typename ReadFunction>
auto ChunkReader::Described(int64_t chunk, ReadFunction read) const {
  if (chunk < 0 || chunk >= index_.chunk_count()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "chunk {} of {} in {} does not exist: there are {}", chunk, index_.dataset,
                    index_.path, index_.chunk_count());
  }
  try {
    return read();
  } catch (const Error& e) {
    std::string message = Describe(chunk) + ": " + e.what();
    if (e.code() == ErrorCode::kCorrupt) message += kDamagedAdvice;
    throw e.Reworded(message);
  }
}

ChunkReadStats ChunkReader::Read(int64_t chunk, std::span<uint8_t> dest,
                                 bool check_checksum) const {
  return Described(chunk, [&] {
    if (dest.size() < static_cast<size_t>(chunk_bytes())) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "a buffer of {} bytes cannot hold the chunk's {}", dest.size(),
                      chunk_bytes());
    }
    switch (index_.read_path) {
      case ReadPath::kStoredTable:
      case ReadPath::kContiguous: return ReadStored(chunk, dest, check_checksum);
      case ReadPath::kHdf5Chunk: return ReadHdf5Chunk(chunk, dest, check_checksum);
      case ReadPath::kHdf5Hyperslab: return ReadHyperslab(chunk, dest);
    }
    throw Error(ErrorCode::kInternal, "unknown read path");
  });
}

bool ChunkReader::MapsInPlace() const {
  return options_.map_file && index_.read_path == ReadPath::kStoredTable &&
         index_.layout == Layout::kNHWC && index_.filters.empty();
}

std::unique_ptr<io::MappedRange> ChunkReader::MapInPlace(int64_t chunk) const {
  if (!MapsInPlace()) return nullptr;
  return Described(chunk, [&]() -> std::unique_ptr<io::MappedRange> {
    const ChunkLocation& where = index_.chunks[static_cast<size_t>(chunk)];
    CheckUnfilteredSize(where.stored_bytes, static_cast<uint64_t>(chunk_bytes()));
    std::unique_ptr<io::MappedRange> mapped =
        file_.MapAt(where.address, static_cast<size_t>(where.stored_bytes));
    if (mapped) VerifyChecksum(chunk, mapped->bytes(), true);
    return mapped;
  });
}

ChunkReadStats ChunkReader::ReadStored(int64_t chunk, std::span<uint8_t> dest, bool check) const {
  const ChunkLocation& where = index_.chunks[static_cast<size_t>(chunk)];
  // h5feed chunks are stored whole, padding included; contiguous blocks hold their rows only.
  const size_t bytes =
      static_cast<size_t>(index_.read_path == ReadPath::kContiguous
                              ? index_.samples_in_chunk(chunk) * index_.sample_bytes()
                              : chunk_bytes());
  ThreadScratch& scratch = Scratch();
  const bool planar = index_.layout == Layout::kNCHW;
  std::span<uint8_t> decoded = planar ? scratch.planar.Get(bytes) : dest.first(bytes);
  if (NothingApplied(index_.filters, where.filter_mask)) {
    CheckUnfilteredSize(where.stored_bytes, bytes);
    file_.ReadAt(where.address, decoded);  // straight into place: no copy
  } else {
    // Read, not mapped: decompressing from a mapping is no faster (docs/reader.md, "What it
    // costs").
    std::span<uint8_t> stored = scratch.stored.Get(static_cast<size_t>(where.stored_bytes));
    file_.ReadAt(where.address, stored);
    DecodeChunk(index_.filters, where.filter_mask, stored, decoded, scratch.decode);
  }
  VerifyChecksum(chunk, decoded, check);
  if (planar) Interleave(decoded, index_.samples_in_chunk(chunk), dest);
  return {where.stored_bytes, bytes};
}

ChunkReadStats ChunkReader::ReadHdf5Chunk(int64_t chunk, std::span<uint8_t> dest,
                                          bool check) const {
  const size_t bytes = static_cast<size_t>(chunk_bytes());
  ThreadScratch& scratch = Scratch();
  const bool planar = index_.layout == Layout::kNCHW;
  std::span<uint8_t> decoded = planar ? scratch.planar.Get(bytes) : dest.first(bytes);
  // Under the HDF5 lock: one B-tree lookup and a copy of the stored bytes. The rest is not.
  Hdf5BlockReader::RawChunk raw = hdf5_->ReadRawChunk(chunk * index_.chunk_samples, scratch.stored);
  if (!raw.stored) {
    std::memset(decoded.data(), index_.fill_value, decoded.size());
  } else if (NothingApplied(index_.filters, raw.filter_mask)) {
    CheckUnfilteredSize(raw.bytes.size(), bytes);
    std::memcpy(decoded.data(), raw.bytes.data(), bytes);
  } else {
    DecodeChunk(index_.filters, raw.filter_mask, raw.bytes, decoded, scratch.decode);
  }
  VerifyChecksum(chunk, decoded, check);
  if (planar) Interleave(decoded, index_.samples_in_chunk(chunk), dest);
  return {raw.bytes.size(), bytes};
}

ChunkReadStats ChunkReader::ReadHyperslab(int64_t chunk, std::span<uint8_t> dest) const {
  const int64_t rows = index_.samples_in_chunk(chunk);
  const size_t bytes = static_cast<size_t>(rows * index_.sample_bytes());
  const bool planar = index_.layout == Layout::kNCHW;
  std::span<uint8_t> decoded = planar ? Scratch().planar.Get(bytes) : dest.first(bytes);
  hdf5_->ReadRows(chunk * index_.chunk_samples, rows, decoded);
  if (planar) Interleave(decoded, rows, dest);
  return {bytes, bytes};
}

bool ChunkReader::ChecksRows() const {
  return options_.verify_checksums && options_.rows_checked_by_caller &&
         !index_.row_checksums.empty();
}

void ChunkReader::VerifyRow(int64_t row, std::span<const uint8_t> sample) const {
  const uint64_t stored = index_.row_checksums.at(static_cast<size_t>(row));
  const uint64_t computed = codec::RowChecksum(sample);
  if (stored != computed) {
    throw MakeError(ErrorCode::kCorrupt, "{}: row {}: checksum mismatch (stored {}, computed {}){}",
                    Describe(index_.chunk_rows().chunk_of(row)), row, Hex64(stored),
                    Hex64(computed), kDamagedAdvice);
  }
}

void ChunkReader::VerifyChecksum(int64_t chunk, std::span<const uint8_t> decoded,
                                 bool check) const {
  if (!check || !options_.verify_checksums || !index_.has_checksums) return;
  if (ChecksRows()) return;  // each row is checked as it is copied out (VerifyRow)
  const uint64_t stored = index_.chunks[static_cast<size_t>(chunk)].checksum;
  const uint64_t computed = codec::ChunkChecksum(decoded);
  if (stored != computed) {
    throw MakeError(ErrorCode::kCorrupt, "checksum mismatch (stored {}, computed {})",
                    Hex64(stored), Hex64(computed));
  }
}

void ChunkReader::Interleave(std::span<const uint8_t> planar, int64_t rows,
                             std::span<uint8_t> dest) const {
  const size_t channels = static_cast<size_t>(index_.shape.channels);
  const size_t pixels = static_cast<size_t>(index_.shape.height * index_.shape.width);
  const size_t sample = pixels * channels;
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* from = planar.data() + static_cast<size_t>(r) * sample;
    uint8_t* to = dest.data() + static_cast<size_t>(r) * sample;
    for (size_t c = 0; c < channels; ++c) {
      const uint8_t* plane = from + c * pixels;
      for (size_t p = 0; p < pixels; ++p) to[p * channels + c] = plane[p];
    }
  }
}

}  // namespace h5feed::index
