// ChunkProblemAt and CheckChunks (chunk_verification.h).

#include "verify/chunk_verification.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "decode/decoder_table.h"
#include "decode/image_decoder.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "source/open_chunk_source.h"
#include "verify/checked_count.h"

namespace h5feed::verify {
namespace {

using index::DatasetIndex;

// The reason alone: ChunkReader's message names the chunk and advises verify, which the
// report does already.
std::string ReasonOnly(const source::ChunkSource& chunks, int64_t chunk, std::string message) {
  const std::string prefix = chunks.Describe(chunk) + ": ";
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  constexpr std::string_view kAdvice = ": the file is damaged; h5feed verify lists every bad chunk";
  if (message.ends_with(kAdvice)) message.resize(message.size() - kAdvice.size());
  return message;
}

// What one worker holds: a decoded chunk, the decoders' scratch for an own-size file's images
// (their state and the pixels of one image), and how many images their checks decoded.
struct ChunkChecker {
  std::vector<uint8_t> chunk;
  decode::DecodeScratch scratch;
  int64_t decoded = 0;
};

// A chunk of a foreign file that HDF5 holds no storage for: its rows read as the fill value.
// An image dataset is written whole, so this is a file whose writer stopped early (an h5py
// script that failed half way still closes the file cleanly) or never wrote these rows; the
// Loader and rechunk would take the fill value for images.
std::string NeverWritten(const DatasetIndex& index) {
  return "never written: the file holds no data for it, so its rows read as HDF5's fill value (" +
         std::to_string(index.fill_value) +
         " in every pixel); the program that wrote the file stopped before these rows, or never "
         "wrote them: write them, or leave them out";
}

// "checksum mismatch (...)" from "row 12: checksum mismatch (...)": the row is a field.
std::string WithoutRow(std::string problem, int64_t row) {
  const std::string prefix = "row " + std::to_string(row) + ": ";
  if (problem.starts_with(prefix)) problem.erase(0, prefix.size());
  return problem;
}

// The images of chunk c (decoded in checker.chunk): each against its own checksum and checked
// by its encoding's decoder, every failure appended to `bad`.
void CheckImages(const DatasetIndex& index, const source::ChunkSource& chunks, int64_t c,
                 ChunkChecker& checker, std::vector<ImageProblem>& bad) {
  const std::span<const uint8_t> chunk(checker.chunk);
  for (int64_t i = 0; i < index.samples_in_chunk(c); ++i) {
    const int64_t row = index.first_row_of_chunk(c) + i;
    const StoredRow image = index.rows.at(row);
    const std::span<const uint8_t> stored = chunk.subspan(image.offset, image.bytes);
    if (!index.row_checksums.empty()) {
      try {
        chunks.VerifyRow(row, stored);
      } catch (const Error& e) {
        bad.push_back({row, c, WithoutRow(ReasonOnly(chunks, c, e.what()), row), {}});
        continue;  // damaged already: what its decode says would add nothing
      }
    }
    decode::ImageCheck check =
        decode::DecoderFor(image.encoding).Check(stored, image.shape, checker.scratch);
    checker.decoded += check.decoded ? 1 : 0;
    if (!check.problem.empty()) bad.push_back({row, c, std::move(check.problem), {}});
  }
}

// "row 10: checksum mismatch (...) (and 1 more rows of the chunk)": the first bad image of a
// chunk, and how many more there are.
std::string Summary(const std::vector<ImageProblem>& bad) {
  std::string text = "row " + std::to_string(bad.front().row) + ": " + bad.front().problem;
  if (bad.size() > 1) {
    text += " (and " + std::to_string(bad.size() - 1) + " more rows of the chunk)";
  }
  return text;
}

// "JPEG images: all 13 decoded whole by libjpeg, ...": what the decoders' checks did, one line
// per encoding whose check adds to the checksum and which the file holds.
void AddImageChecks(const DatasetIndex& index, VerificationReport& report) {
  for (const decode::ImageDecoder* decoder : decode::AllDecoders()) {
    if (decoder->checked().empty()) continue;
    const int64_t images = index.rows.count(decoder->encoding());
    if (images == 0) continue;
    report.checked.push_back(std::string(decoder->name()) + " images: " + All(images) + " " +
                             std::string(decoder->checked()));
  }
}

}  // namespace

ChunkProblem ChunkProblemAt(const DatasetIndex& index, int64_t chunk, std::string problem) {
  const int64_t first = index.first_row_of_chunk(chunk);
  return {chunk, first, first + std::max<int64_t>(index.samples_in_chunk(chunk), 1) - 1,
          std::move(problem)};
}

void CheckChunks(const DatasetIndex& index, const VerifyOptions& options,
                 VerificationReport& report) {
  // Every chunk checked whole (where the Loader checks rows instead), and every row below.
  const std::unique_ptr<source::ChunkSource> chunks =
      source::OpenChunkSource(index, source::ChunkSourceOptions{});
  const int64_t total = index.chunk_count();
  std::mutex mutex;  // guards report.bad_chunks, report.bad_images and on_progress calls
  std::atomic<int64_t> done{0}, decoded_images{0};
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, 1), [&](const auto& range) {
      ChunkChecker checker;
      checker.chunk.resize(static_cast<size_t>(chunks->chunk_bytes()));
      for (int64_t c = range.begin(); c != range.end(); ++c) {
        std::string problem;
        bool decoded = false;
        try {
          const auto read = chunks->Read(c, checker.chunk);
          decoded = true;
          if (read.bytes_read == 0 && index.read_path == index::ReadPath::kHdf5Chunk) {
            problem = NeverWritten(index);
          }
        } catch (const Error& e) {
          problem = ReasonOnly(*chunks, c, e.what());
        }
        // A chunk failing its checksum may still decode: its images' own checks (their
        // checksums, their decoders') tell which of them are damaged.
        if (!decoded && index.has_checksums) {
          try {
            chunks->Read(c, checker.chunk, /*check_checksum=*/false);
            decoded = true;
          } catch (const Error&) {}
        }
        std::vector<ImageProblem> bad;
        if (decoded) CheckImages(index, *chunks, c, checker, bad);
        if (!bad.empty()) problem += (problem.empty() ? "" : "; ") + Summary(bad);
        std::lock_guard guard(mutex);
        if (!problem.empty()) report.bad_chunks.push_back(ChunkProblemAt(index, c, problem));
        for (ImageProblem& p : bad) report.bad_images.push_back(std::move(p));
        const int64_t now = ++done;
        if (options.on_progress) options.on_progress(now, total);
      }
      decoded_images += checker.decoded;
    });
  });
  report.chunks_checked = done.load();
  report.images_decoded = decoded_images.load();
  std::string how = "chunks: " + All(total) + " read and decoded (" +
                    std::string(index::ToString(index.read_path)) + ")";
  if (index.has_checksums) how += ", each against its XXH3-64 checksum";
  if (!index.row_checksums.empty()) how += ", and every image against its own";
  report.checked.push_back(how);
  AddImageChecks(index, report);
  if (!index.has_checksums) {
    report.not_checked.push_back(
        "chunk contents: the file has no checksums (not written by h5feed), so damage that "
        "still decodes cannot be told from data" +
        std::string(index.read_path == index::ReadPath::kHdf5Hyperslab
                        ? "; HDF5 decoded the chunks and checked what its filters check"
                        : ""));
  }
}

}  // namespace h5feed::verify
