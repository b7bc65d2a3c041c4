// chunk_costs FILE.h5 [--chunks N] [--rounds R]
//
// What each step of getting a chunk into a batch costs on one thread, with the library's own
// code: the breakdown behind docs/reader.md ("Why 0.80 of these ceilings is out of reach").
// `h5feed bench` measures the whole loader; this measures its parts, so the gap between the
// loader and its ceiling can be accounted for step by step.
//
// For a zstd file: decompressing frames already in memory (the ceiling's own measurement),
// then with the pread from the page cache before it, then with the checksum after it (the
// loader's path), then from a mapping instead of pread. For an uncompressed file: pread, pread
// and checksum (--no-map), mapping (residency check, populate, unmap), mapping and checksum
// (the loader's path). For both: the gather of rows from a window of 8 decoded chunks into
// 256-row slots in random order, with ordinary and with streaming stores, beside one memcpy
// of whole chunks.
//
// Prints MB/s of decoded chunk bytes (MB = 10^6 bytes), best of R rounds over the first N
// chunks, and each as a fraction of the first line. The page cache should hold the file (read
// it once first); mapped lines say so when it does not. Every checksum is compared with the
// file's: a mismatch is an error.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "codec/checksum.h"
#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "pipeline/row_copy.h"
#include "whole_number_arg.h"

namespace {

using h5feed::index::ChunkLocation;
using h5feed::index::DatasetIndex;

struct Options {
  std::string path;
  int64_t chunks = 64;
  int rounds = 4;
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr, "chunk_costs: %s\nusage: chunk_costs FILE.h5 [--chunks N] [--rounds R]\n",
               problem.c_str());
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--chunks" || arg == "--rounds") {
      if (++i >= argc) Usage(arg + " needs a value");
      const long value = WholeNumberArg(arg, argv[i], 1'000'000, Usage);
      if (arg == "--chunks") {
        options.chunks = value;
      } else {
        options.rounds = static_cast<int>(value);
      }
    } else if (options.path.empty() && !arg.starts_with("-")) {
      options.path = arg;
    } else {
      Usage("unexpected argument '" + arg + "'");
    }
  }
  if (options.path.empty()) Usage("FILE.h5 is missing");
  return options;
}

// Best seconds of `rounds` runs of `once`.
double BestSeconds(int rounds, const std::function<void()>& once) {
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    once();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

class ChunkCosts {
 public:
  ChunkCosts(const Options& options, DatasetIndex index)
      : options_(options),
        index_(std::move(index)),
        file_(h5feed::io::OpenPosixFile(options.path)),
        chunk_bytes_(static_cast<size_t>(index_.chunk_samples * index_.sample_bytes())),
        decoded_(chunk_bytes_) {
    const auto count = std::min<int64_t>(options.chunks, index_.chunk_count());
    chunks_.assign(index_.chunks.begin(), index_.chunks.begin() + count);
    for (const auto& chunk : chunks_) {
      if (index_.filters.empty() && chunk.stored_bytes != chunk_bytes_) {
        throw h5feed::Error(h5feed::ErrorCode::kCorrupt,
                            "an uncompressed chunk of " + std::to_string(chunk.stored_bytes) +
                                " bytes where " + std::to_string(chunk_bytes_) + " belong");
      }
    }
  }

  void Run() {
    const bool zstd =
        index_.filters.size() == 1 && index_.filters[0].kind == h5feed::index::FilterKind::kZstd;
    std::printf("%s: %zu chunks of %.2f MiB (%s), one thread, best of %d\n", options_.path.c_str(),
                chunks_.size(), double(chunk_bytes_) / (1 << 20), zstd ? "zstd" : "uncompressed",
                options_.rounds);
    if (zstd) {
      MeasureZstd();
    } else {
      MeasureUncompressed();
    }
    MeasureGather();
  }

 private:
  void Report(const char* what, double seconds, double bytes) {
    const double mb_per_s = bytes / seconds / 1e6;
    if (first_mb_per_s_ == 0) first_mb_per_s_ = mb_per_s;
    std::printf("  %-58s %8.0f MB/s  %5.2f\n", what, mb_per_s, mb_per_s / first_mb_per_s_);
  }
  double AllChunkBytes() const { return double(chunk_bytes_) * double(chunks_.size()); }

  void Check(const ChunkLocation& chunk, std::span<const uint8_t> bytes) const {
    if (h5feed::codec::ChunkChecksum(bytes) != chunk.checksum) {
      throw h5feed::Error(h5feed::ErrorCode::kCorrupt,
                          "checksum mismatch at offset " + std::to_string(chunk.address));
    }
  }

  // A mapping of the chunk, or nullptr (and a note) when the page cache does not hold it.
  std::unique_ptr<h5feed::io::MappedRange> Map(const ChunkLocation& chunk) {
    auto mapped = file_->MapAt(chunk.address, chunk.stored_bytes);
    if (!mapped) ++unmapped_;
    return mapped;
  }
  void NoteUnmapped(const char* what) {
    if (unmapped_ == 0) return;
    std::printf("  (%s: %lld chunk reads were not mapped: the page cache does not hold them)\n",
                what, static_cast<long long>(unmapped_));
    unmapped_ = 0;
  }

  void MeasureZstd() {
    std::vector<std::vector<uint8_t>> frames;
    for (const auto& chunk : chunks_) {
      frames.emplace_back(chunk.stored_bytes);
      file_->ReadAt(chunk.address, frames.back());
    }
    std::vector<uint8_t> input;
    const int rounds = options_.rounds;
    Report("decompress, frames in memory (the ceiling)",
           BestSeconds(rounds,
                       [&] {
                         for (const auto& frame : frames)
                           h5feed::codec::ZstdDecompress(frame, decoded_);
                       }),
           AllChunkBytes());
    auto read_and_decompress = [&](bool check) {
      for (const auto& chunk : chunks_) {
        input.resize(chunk.stored_bytes);
        file_->ReadAt(chunk.address, input);
        h5feed::codec::ZstdDecompress(input, decoded_);
        if (check) Check(chunk, decoded_);
      }
    };
    Report("pread + decompress", BestSeconds(rounds, [&] { read_and_decompress(false); }),
           AllChunkBytes());
    Report("pread + decompress + checksum (files without row checksums)",
           BestSeconds(rounds, [&] { read_and_decompress(true); }), AllChunkBytes());
    Report("map + decompress + checksum",
           BestSeconds(rounds,
                       [&] {
                         for (const auto& chunk : chunks_) {
                           if (auto mapped = Map(chunk)) {
                             h5feed::codec::ZstdDecompress(mapped->bytes(), decoded_);
                             Check(chunk, decoded_);
                           }
                         }
                       }),
           AllChunkBytes());
    NoteUnmapped("map");
  }

  void MeasureUncompressed() {
    const int rounds = options_.rounds;
    auto read = [&](bool check) {
      for (const auto& chunk : chunks_) {
        file_->ReadAt(chunk.address, decoded_);
        if (check) Check(chunk, decoded_);
      }
    };
    Report("pread", BestSeconds(rounds, [&] { read(false); }), AllChunkBytes());
    Report("pread + checksum (--no-map)", BestSeconds(rounds, [&] { read(true); }),
           AllChunkBytes());
    auto map = [&](bool check) {
      for (const auto& chunk : chunks_) {
        if (auto mapped = Map(chunk); mapped && check) Check(chunk, mapped->bytes());
      }
    };
    Report("map: residency check, populate, unmap", BestSeconds(rounds, [&] { map(false); }),
           AllChunkBytes());
    Report("map + checksum (files without row checksums)", BestSeconds(rounds, [&] { map(true); }),
           AllChunkBytes());
    NoteUnmapped("map");
  }

  // Rows of a window of 8 decoded chunks, shuffled, copied into a ring of 4 slots of 256 rows.
  void MeasureGather() {
    constexpr size_t kWindow = 8, kBatch = 256, kSlots = 4;
    const size_t window = std::min(kWindow, chunks_.size());
    const auto rows_per_chunk = static_cast<size_t>(index_.chunk_samples);
    const auto row_bytes = static_cast<size_t>(index_.sample_bytes());
    std::vector<std::vector<uint8_t>> decoded(window, std::vector<uint8_t>(chunk_bytes_, 1));
    std::vector<std::pair<size_t, size_t>> order;  // (chunk, row)
    for (size_t c = 0; c < window; ++c) {
      for (size_t r = 0; r < rows_per_chunk; ++r) order.emplace_back(c, r);
    }
    std::shuffle(order.begin(), order.end(), std::mt19937(0));
    const size_t slot_bytes = kBatch * row_bytes;
    std::vector<uint8_t> slots(kSlots * slot_bytes, 0);
    const double bytes = double(order.size()) * double(row_bytes);
    volatile uint64_t last_hash = 0;  // a volatile store per row: no check is optimised away
    auto gather = [&](h5feed::pipeline::SlotWrites writes, bool check_rows) {
      for (size_t i = 0; i < order.size(); ++i) {
        uint8_t* slot = slots.data() + (i / kBatch % kSlots) * slot_bytes;
        const auto [c, r] = order[i];
        const uint8_t* row = decoded[c].data() + r * row_bytes;
        if (check_rows) last_hash = h5feed::codec::RowChecksum({row, row_bytes});
        h5feed::pipeline::CopyRow(slot + (i % kBatch) * row_bytes, row, row_bytes, writes);
      }
      h5feed::pipeline::FinishSlotWrites(writes);
    };
    std::printf(
        "  gather: %zu chunks shuffled into slots of %zu rows (%.2f MiB; the loader "
        "streams from %s)\n",
        window, kBatch, double(slot_bytes) / (1 << 20),
        h5feed::pipeline::SlotWritesFor(slot_bytes) == h5feed::pipeline::SlotWrites::kStreaming
            ? "this size"
            : "4 MiB");
    const int rounds = options_.rounds;
    Report("gather, ordinary stores",
           BestSeconds(rounds, [&] { gather(h5feed::pipeline::SlotWrites::kCached, false); }),
           bytes);
    Report("gather, streaming stores",
           BestSeconds(rounds, [&] { gather(h5feed::pipeline::SlotWrites::kStreaming, false); }),
           bytes);
    Report("gather, each row checked first (the loader)",
           BestSeconds(rounds, [&] { gather(h5feed::pipeline::SlotWritesFor(slot_bytes), true); }),
           bytes);
    std::vector<uint8_t> copy(chunk_bytes_);
    Report("memcpy of whole chunks",
           BestSeconds(rounds,
                       [&] {
                         for (const auto& chunk : decoded)
                           std::memcpy(copy.data(), chunk.data(), chunk_bytes_);
                       }),
           double(window) * double(chunk_bytes_));
  }

  const Options options_;
  const DatasetIndex index_;
  const std::unique_ptr<h5feed::io::RandomAccessFile> file_;
  const size_t chunk_bytes_;
  std::vector<uint8_t> decoded_;
  std::vector<ChunkLocation> chunks_;
  double first_mb_per_s_ = 0;
  int64_t unmapped_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    DatasetIndex index = h5feed::index::OpenDatasetIndex(options.path, {});
    if (index.read_path != h5feed::index::ReadPath::kStoredTable || !index.has_checksums ||
        index.filters.size() > 1 ||
        (index.filters.size() == 1 && index.filters[0].kind != h5feed::index::FilterKind::kZstd)) {
      std::fprintf(stderr,
                   "chunk_costs: %s is not an h5feed file with uncompressed or zstd "
                   "chunks and checksums\n",
                   options.path.c_str());
      return 2;
    }
    ChunkCosts(options, std::move(index)).Run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "chunk_costs: %s\n", error.what());
    return 1;
  }
  return 0;
}
