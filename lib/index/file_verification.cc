#include "index/file_verification.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "index/h5feed_index.h"
#include "index/image_storage.h"
#include "io/random_access_file.h"
#include "remote/location.h"
#include "remote/open_file.h"

namespace h5feed::index {
namespace {

// Bad labels listed one by one up to this many; the rest are counted.
constexpr int64_t kLabelsListed = 10;

ChunkProblem ProblemAt(const DatasetIndex& index, int64_t chunk, std::string problem) {
  const int64_t first = chunk * index.chunk_samples;
  return {chunk, first, first + std::max<int64_t>(index.samples_in_chunk(chunk), 1) - 1,
          std::move(problem)};
}

// The reason alone: ChunkReader's message names the chunk and advises verify, which the
// report does already.
std::string Reason(const ChunkReader& reader, int64_t chunk, std::string message) {
  const std::string prefix = reader.Describe(chunk) + ": ";
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  constexpr std::string_view kAdvice = ": the file is damaged; h5feed verify lists every bad chunk";
  if (message.ends_with(kAdvice)) message.resize(message.size() - kAdvice.size());
  return message;
}

// Rows of dataset `name` (its first dimension); -1 when it does not exist.
int64_t RowsOf(hid_t file, const char* name) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) return -1;
  hdf5::Dataset dataset(H5Dopen2(file, name, H5P_DEFAULT));
  if (!dataset) return -1;
  hdf5::DatasetEntry entry = hdf5::DescribeDataset(dataset.get(), name);
  return entry.dims.empty() ? 1 : entry.dims[0];
}

void CheckCount(hid_t file, const char* dataset, int64_t expected, const std::string& what,
                VerificationReport& report) {
  const int64_t rows = RowsOf(file, dataset);
  if (rows == expected) return;
  report.problems.push_back(
      std::string("/") + dataset +
      (rows < 0 ? " is missing" : " holds " + std::to_string(rows) + " rows") + " for " +
      std::to_string(expected) + " " + what);
}

// The table against HDF5's chunk index, every row; the attributes and the string lists
// against the counts. h5feed files only.
void CheckH5feedMetadata(const DatasetIndex& index, FileLocking locking,
                         VerificationReport& report) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(index.location, locking, index.remote);
  const hid_t file = opened.file.get();
  hdf5::Dataset images(H5Dopen2(file, format::schema::kImages, H5P_DEFAULT));
  if (!images) throw hdf5::StackError(ErrorCode::kCorrupt, "opening /images", index.path);
  for (int64_t c = 0; c < index.chunk_count(); ++c) {
    std::string mismatch;
    try {
      mismatch = TableRowMismatch(images.get(), c, index.chunk_samples,
                                  index.chunks[static_cast<size_t>(c)], index.path);
    } catch (const Error& e) {
      mismatch = e.what();
    }
    if (!mismatch.empty()) {
      report.bad_chunks.push_back(
          ProblemAt(index, c, "the stored chunk table does not match HDF5's: " + mismatch));
    }
  }
  report.checked.push_back("chunk table: all " + std::to_string(index.chunk_count()) +
                           " rows against HDF5's own chunk index");

  const auto attribute_text = [&](const char* name) -> std::string {
    try {
      return hdf5::ReadStringAttribute(file, name);
    } catch (const Error& e) {
      report.problems.push_back(std::string("attribute ") + name + ": " + e.what());
      return {};
    }
  };
  const std::string layout = attribute_text(format::schema::kAttrLayout);
  if (!layout.empty() && layout != format::schema::kLayoutNHWC) {
    report.problems.push_back("attribute layout is \"" + layout + "\"; format 1 stores NHWC");
  }
  const std::string compression = attribute_text(format::schema::kAttrCompression);
  if (!compression.empty() && compression != PipelineText(index.filters)) {
    report.problems.push_back("attribute compression is \"" + compression +
                              "\" but /images is filtered with " + PipelineText(index.filters));
  }
  CheckCount(file, format::schema::kSources, index.samples, "images", report);
  int64_t skipped = -1;
  try {
    skipped = hdf5::ReadInt64Attribute(file, format::schema::kAttrNumSkipped);
  } catch (const Error& e) {
    report.problems.push_back(std::string("attribute num_skipped: ") + e.what());
  }
  if (skipped >= 0) {
    CheckCount(file, format::schema::kSkippedSources, skipped, "skipped sources (num_skipped)",
               report);
    CheckCount(file, format::schema::kSkippedReasons, skipped, "skipped sources (num_skipped)",
               report);
  }
  report.checked.push_back(
      "attributes: format name and version, layout, compression, num_images, chunk_images, "
      "num_classes, num_skipped; /sources, /classes and the skipped lists against them");
}

void CheckLabels(const DatasetIndex& index, VerificationReport& report) {
  const int64_t classes = static_cast<int64_t>(index.classes.size());
  if (classes == 0) {
    report.not_checked.push_back("labels against classes: the file names no classes");
    return;
  }
  int64_t bad = 0;
  for (size_t row = 0; row < index.labels.size(); ++row) {
    const int64_t label = index.labels[row];
    if (label >= 0 && label < classes) continue;
    if (++bad <= kLabelsListed) {
      report.problems.push_back("label " + std::to_string(label) + " of row " +
                                std::to_string(row) + " is outside the " + std::to_string(classes) +
                                " classes");
    }
  }
  if (bad > kLabelsListed) {
    report.problems.push_back(std::to_string(bad - kLabelsListed) +
                              " more labels are outside the classes");
  }
  report.checked.push_back("labels: all " + std::to_string(index.labels.size()) + " in [0, " +
                           std::to_string(classes) + ")");
}

// The rows of chunk c (decoded in `chunk`) against their own checksums: the first that fails,
// and how many more do; "" when all pass.
std::string RowProblem(const DatasetIndex& index, const ChunkReader& reader, int64_t c,
                       std::span<const uint8_t> chunk) {
  const auto bytes = static_cast<size_t>(index.sample_bytes());
  std::string first;
  int64_t more = 0;
  for (int64_t i = 0; i < index.samples_in_chunk(c); ++i) {
    try {
      reader.VerifyRow(c * index.chunk_samples + i,
                       chunk.subspan(static_cast<size_t>(i) * bytes, bytes));
    } catch (const Error& e) {
      if (first.empty()) {
        first = Reason(reader, c, e.what());
      } else {
        ++more;
      }
    }
  }
  if (more > 0) first += " (and " + std::to_string(more) + " more rows of the chunk)";
  return first;
}

void CheckChunks(const DatasetIndex& index, const VerifyOptions& options,
                 VerificationReport& report) {
  std::unique_ptr<io::RandomAccessFile> file = remote::OpenFile(index.location, index.remote);
  const ChunkReader reader(index, *file, ChunkReaderOptions{true});
  const int64_t total = index.chunk_count();
  std::mutex mutex;  // guards report.bad_chunks and on_progress calls
  std::atomic<int64_t> done{0};
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, 1), [&](const auto& range) {
      std::vector<uint8_t> buffer(static_cast<size_t>(reader.chunk_bytes()));
      for (int64_t c = range.begin(); c != range.end(); ++c) {
        std::string problem;
        try {
          reader.Read(c, buffer);
          if (!index.row_checksums.empty()) problem = RowProblem(index, reader, c, buffer);
        } catch (const Error& e) {
          problem = Reason(reader, c, e.what());
        }
        std::lock_guard guard(mutex);
        if (!problem.empty()) report.bad_chunks.push_back(ProblemAt(index, c, problem));
        const int64_t now = ++done;
        if (options.on_progress) options.on_progress(now, total);
      }
    });
  });
  report.chunks_checked = done.load();
  std::string how = "chunks: all " + std::to_string(total) + " read and decoded (" +
                    std::string(ToString(index.read_path)) + ")";
  if (index.has_checksums) how += ", each against its XXH3-64 checksum";
  if (!index.row_checksums.empty()) how += ", and every image against its own";
  report.checked.push_back(how);
  if (!index.has_checksums) {
    report.not_checked.push_back(
        "chunk contents: the file has no checksums (not written by h5feed), so damage that "
        "still decodes cannot be told from data" +
        std::string(index.read_path == ReadPath::kHdf5Hyperslab
                        ? "; HDF5 decoded the chunks and checked what its filters check"
                        : ""));
  }
}

}  // namespace

VerificationReport VerifyFile(const std::string& path, const VerifyOptions& options) {
  VerificationReport report;
  report.path = remote::DisplayName(path);
  IndexOptions index_options;
  index_options.verify_table_entries = 0;  // every row is compared below, each reported
  index_options.file_locking = options.file_locking;
  index_options.check_labels = false;  // every bad label is listed below
  index_options.remote = options.remote;
  std::error_code ec;
  if (!IsRemoteLocation(path) && !std::filesystem::exists(path, ec)) {
    throw Error(ErrorCode::kNotFound, path + " does not exist");
  }
  // A remote object that is missing or refused (404, 403) is not damage: said as thrown.
  if (IsRemoteLocation(path)) remote::OpenFile(path, remote::RemoteOpen{options.remote, ""});
  DatasetIndex index;
  try {
    index = OpenDatasetIndex(path, index_options);
  } catch (const Error& e) {
    // The file exists: a dataset it lacks (kNotFound) is damage too. Anything else (an I/O
    // failure, a newer format) leaves the file unjudged.
    if (e.code() != ErrorCode::kCorrupt && e.code() != ErrorCode::kNotFound) throw;
    report.problems.push_back(e.what());
    report.not_checked.push_back("chunks, labels and counts: the file could not be indexed");
    return report;
  }
  report.indexed = true;
  report.is_h5feed = index.is_h5feed;
  report.samples = index.samples;
  report.chunks = index.chunk_count();
  report.chunk_samples = index.chunk_samples;
  report.read_path = ToString(index.read_path);
  report.warnings = index.warnings;
  if (index.is_h5feed) {
    CheckH5feedMetadata(index, index.file_locking, report);
  } else {
    report.not_checked.push_back(
        "chunk table and format attributes: the file was not written by h5feed (it has "
        "neither); HDF5's own chunk index is used as it is");
  }
  CheckLabels(index, report);
  CheckChunks(index, options, report);
  // One entry per chunk: a chunk the table misplaces usually fails its checksum as well.
  std::vector<ChunkProblem>& bad = report.bad_chunks;
  std::stable_sort(bad.begin(), bad.end(),
                   [](const ChunkProblem& a, const ChunkProblem& b) { return a.chunk < b.chunk; });
  std::vector<ChunkProblem> merged;
  for (ChunkProblem& p : bad) {
    if (!merged.empty() && merged.back().chunk == p.chunk) {
      merged.back().problem += "; " + p.problem;
    } else {
      merged.push_back(std::move(p));
    }
  }
  bad = std::move(merged);
  return report;
}

}  // namespace h5feed::index
