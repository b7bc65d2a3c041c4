// ChunkSource (chunk_source.h).
#include "source/chunk_source.h"

#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::source {

ChunkSource::ChunkSource(const index::DatasetIndex& dataset,
                         std::unique_ptr<io::RandomAccessFile> file,
                         const index::ChunkReaderOptions& options)
    : dataset_(dataset), file_(std::move(file)), reader_(dataset, *file_, options) {}

cache::LoadResult ChunkSource::Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) {
  if (std::unique_ptr<io::MappedRange> mapped = reader_.MapInPlace(chunk)) {
    const std::span<const uint8_t> bytes = mapped->bytes();
    target.Adopt(bytes, std::shared_ptr<const io::MappedRange>(std::move(mapped)));
    return cache::LoadResult{bytes.size(), bytes.size()};
  }
  const index::ChunkReadStats read = Read(chunk, target.Buffer());
  return cache::LoadResult{read.bytes_read, read.bytes_decoded};
}

void ChunkSource::ReadStored(int64_t chunk, std::vector<uint8_t>& bytes) const {
  if (!index::ReadsByAddress(dataset_.read_path) || chunk < 0 ||
      chunk >= static_cast<int64_t>(dataset_.chunks.size())) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{}: its stored bytes cannot be read as they are ({}); only h5feed files and "
                    "contiguous datasets keep chunks at known addresses",
                    Describe(chunk), index::ToString(dataset_.read_path));
  }
  const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
  bytes.resize(static_cast<size_t>(at.stored_bytes));
  try {
    file_->ReadAt(at.address, bytes);
  } catch (const Error& e) {
    throw e.Reworded(fmt::format("{}: {}", Describe(chunk), e.what()));
  }
}

}  // namespace h5feed::source
