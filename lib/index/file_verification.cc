// VerifyFile (h5feed/verify.h). Each chunk is read and decoded through the Loader's own
// ChunkReader, so verify judges what the Loader would deliver; a chunk that fails its checksum
// is decoded again without it to find the bad images. JPEG images are decoded whole by
// lib/decode.
//
// Chunks are checked in parallel (TBB) outside HDF5's lock, each worker holding one decoded
// chunk, one JPEG decoder and the pixels of one image (an image of more than 64 MiB of pixels
// is decoded at 1/8 scale: every entropy-coded bit is still read); the HDF5 lookups of the
// table check are serial (HDF5 1.10.8 runs one call at a time anyway).

#include "h5feed/verify.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>

#include "decode/jpeg_info.h"
#include "decode/jpeg_region_decoder.h"
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
#include "make_error.h"
#include "remote/location.h"
#include "remote/open_file.h"

namespace h5feed::index {
namespace {

// Bad labels listed one by one up to this many; the rest are counted.
constexpr int64_t kLabelsListed = 10;

// A JPEG of more pixels than this is decoded at 1/8 scale, so that a worker's memory does not
// follow the largest image a file without a max_side may hold: libjpeg still reads and
// Huffman-decodes every coefficient, only the inverse DCT is coarser.
constexpr int64_t kWholeDecodeBytes = int64_t{64} << 20;

ChunkProblem ProblemAt(const DatasetIndex& index, int64_t chunk, std::string problem) {
  const int64_t first = index.first_row_of_chunk(chunk);
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

// Whether image `image` is stored as the encoding attribute asks ("raw", "jpeg:Q", "smart:Q"
// with `smart_threshold`); nullopt for an attribute of another form.
std::optional<bool> AsAsked(std::string_view encoding, int64_t smart_threshold,
                            const StoredImage& image) {
  if (encoding == "raw") return !image.jpeg();
  if (encoding.starts_with("jpeg:")) return image.jpeg();
  if (encoding.starts_with("smart:")) {
    const int64_t raw = int64_t{image.height} * image.width * image.channels;
    return image.jpeg() == (raw > smart_threshold);
  }
  return std::nullopt;
}

// Own-size files: every image stored as the encoding attribute says (docs/format.md,
// "Encodings"), and max_side, when set, caps every image's longer side.
void CheckEncodingAttribute(const DatasetIndex& index, hid_t file, VerificationReport& report) {
  int64_t smart_threshold = 0;
  if (index.encoding.starts_with("smart:")) {
    try {
      smart_threshold = hdf5::ReadInt64Attribute(file, format::schema::kAttrSmartThreshold);
    } catch (const Error& e) {
      report.problems.push_back(std::string("attribute smart_threshold: ") + e.what());
      return;
    }
  }
  int64_t unlike = 0, first_unlike = -1, oversize = 0, first_oversize = -1;
  for (size_t row = 0; row < index.images.size(); ++row) {
    const StoredImage& image = index.images[row];
    const std::optional<bool> as_asked = AsAsked(index.encoding, smart_threshold, image);
    if (!as_asked) {
      report.problems.push_back("attribute encoding is \"" + index.encoding +
                                "\", not raw, jpeg:Q or smart:Q");
      return;
    }
    if (!*as_asked && unlike++ == 0) first_unlike = static_cast<int64_t>(row);
    if (index.max_side > 0 && std::max(image.height, image.width) > index.max_side &&
        oversize++ == 0) {
      first_oversize = static_cast<int64_t>(row);
    }
  }
  if (unlike > 0) {
    report.problems.push_back(std::to_string(unlike) +
                              " images are not stored as attribute encoding \"" + index.encoding +
                              "\" says (the first: row " + std::to_string(first_unlike) + ")");
  }
  if (oversize > 0) {
    const StoredImage& image = index.images[static_cast<size_t>(first_oversize)];
    report.problems.push_back(
        std::to_string(oversize) + " images have a side longer than " + "attribute max_side " +
        std::to_string(index.max_side) + " (the first: row " + std::to_string(first_oversize) +
        ", " + std::to_string(image.height) + "x" + std::to_string(image.width) + ")");
  }
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
      const int64_t extent = index.own_size ? index.own_size_chunk_bytes : index.chunk_samples;
      mismatch = TableRowMismatch(images.get(), c, extent, index.chunks[static_cast<size_t>(c)],
                                  index.path);
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
  const std::string expected_layout =
      index.own_size ? format::schema::kLayoutFlat : format::schema::kLayoutNHWC;
  if (!layout.empty() && layout != expected_layout) {
    report.problems.push_back(
        "attribute layout is \"" + layout + "\"; format " +
        (index.own_size ? "2 stores images at their own size as flat" : "1 stores NHWC"));
  }
  if (index.own_size) CheckEncodingAttribute(index, file, report);
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
      index.own_size
          ? "attributes: format name and version, layout, compression, num_images, "
            "chunk_bytes, max_side, encoding (against every image's), num_classes, "
            "num_skipped; /sources, /classes and the skipped lists against them"
          : "attributes: format name and version, layout, compression, num_images, "
            "chunk_images, num_classes, num_skipped; /sources, /classes and the skipped lists "
            "against them");
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

// What one worker holds: a decoded chunk, a JPEG decoder and one image's pixels.
struct ChunkChecker {
  std::vector<uint8_t> chunk;
  decode::JpegRegionDecoder decoder;
  std::vector<uint8_t> pixels;
  int64_t jpeg_decoded = 0;
};

// "checksum mismatch (...)" from "row 12: checksum mismatch (...)": the row is a field.
std::string WithoutRow(std::string problem, int64_t row) {
  const std::string prefix = "row " + std::to_string(row) + ": ";
  if (problem.starts_with(prefix)) problem.erase(0, prefix.size());
  return problem;
}

// Decodes an own-size file's JPEG whole (or at 1/8 scale when its pixels exceed
// kWholeDecodeBytes); "" when it decodes, else why not.
std::string JpegProblem(const StoredImage& image, std::span<const uint8_t> jpeg,
                        ChunkChecker& checker) {
  const decode::JpegInfo expected{image.height, image.width, image.channels};
  const bool whole = int64_t{image.height} * image.width * image.channels <= kWholeDecodeBytes;
  const int64_t min_height = whole ? image.height : std::max(image.height / 8, 1);
  const int64_t min_width = whole ? image.width : std::max(image.width / 8, 1);
  ++checker.jpeg_decoded;
  try {
    checker.decoder.Decode(jpeg, expected, decode::PixelBox{0, 0, image.height, image.width},
                           min_height, min_width, checker.pixels);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// The images of chunk c (decoded in checker.chunk): each against its own checksum, and an
// own-size file's JPEGs decoded, every failure appended to `bad`.
void CheckImages(const DatasetIndex& index, const ChunkReader& reader, int64_t c,
                 ChunkChecker& checker, std::vector<ImageProblem>& bad) {
  const std::span<const uint8_t> chunk(checker.chunk);
  for (int64_t i = 0; i < index.samples_in_chunk(c); ++i) {
    const int64_t row = index.first_row_of_chunk(c) + i;
    const auto [offset, bytes] = index.row_in_chunk(row);
    const std::span<const uint8_t> stored = chunk.subspan(offset, bytes);
    if (!index.row_checksums.empty()) {
      try {
        reader.VerifyRow(row, stored);
      } catch (const Error& e) {
        bad.push_back({row, c, WithoutRow(Reason(reader, c, e.what()), row)});
        continue;  // damaged already: what its decode says would add nothing
      }
    }
    if (index.own_size && index.images[static_cast<size_t>(row)].jpeg()) {
      std::string problem = JpegProblem(index.images[static_cast<size_t>(row)], stored, checker);
      if (!problem.empty()) bad.push_back({row, c, std::move(problem)});
    }
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

void CheckChunks(const DatasetIndex& index, const VerifyOptions& options,
                 VerificationReport& report) {
  std::unique_ptr<io::RandomAccessFile> file = remote::OpenFile(index.location, index.remote);
  const ChunkReader reader(index, *file, ChunkReaderOptions{true});
  // Per-image checks can tell which images of a chunk that fails its checksum are damaged: the
  // chunk is decoded again without the chunk checksum for them.
  const bool per_image = !index.row_checksums.empty() || index.own_size;
  std::unique_ptr<ChunkReader> unchecked;
  if (per_image && index.has_checksums) {
    unchecked = std::make_unique<ChunkReader>(index, *file, ChunkReaderOptions{false});
  }
  const int64_t total = index.chunk_count();
  std::mutex mutex;  // guards report.bad_chunks, report.bad_images and on_progress calls
  std::atomic<int64_t> done{0}, jpeg_decoded{0};
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total, 1), [&](const auto& range) {
      ChunkChecker checker;
      checker.chunk.resize(static_cast<size_t>(reader.chunk_bytes()));
      for (int64_t c = range.begin(); c != range.end(); ++c) {
        std::string problem;
        bool decoded = false;
        try {
          reader.Read(c, checker.chunk);
          decoded = true;
        } catch (const Error& e) {
          problem = Reason(reader, c, e.what());
        }
        if (!decoded && unchecked) {  // a checksum mismatch still decodes: find the images
          try {
            unchecked->Read(c, checker.chunk);
            decoded = true;
          } catch (const Error&) {}
        }
        std::vector<ImageProblem> bad;
        if (decoded && per_image) CheckImages(index, reader, c, checker, bad);
        if (!bad.empty()) problem += (problem.empty() ? "" : "; ") + Summary(bad);
        std::lock_guard guard(mutex);
        if (!problem.empty()) report.bad_chunks.push_back(ProblemAt(index, c, problem));
        for (ImageProblem& p : bad) report.bad_images.push_back(std::move(p));
        const int64_t now = ++done;
        if (options.on_progress) options.on_progress(now, total);
      }
      jpeg_decoded += checker.jpeg_decoded;
    });
  });
  report.chunks_checked = done.load();
  report.jpeg_images_decoded = jpeg_decoded.load();
  std::string how = "chunks: all " + std::to_string(total) + " read and decoded (" +
                    std::string(ToString(index.read_path)) + ")";
  if (index.has_checksums) how += ", each against its XXH3-64 checksum";
  if (!index.row_checksums.empty()) how += ", and every image against its own";
  report.checked.push_back(how);
  if (index.own_size && report.jpeg_images > 0) {
    report.checked.push_back("JPEG images: all " + std::to_string(report.jpeg_images) +
                             " decoded whole by libjpeg, each header against /image_shapes");
  }
  if (!index.has_checksums) {
    report.not_checked.push_back(
        "chunk contents: the file has no checksums (not written by h5feed), so damage that "
        "still decodes cannot be told from data" +
        std::string(index.read_path == ReadPath::kHdf5Hyperslab
                        ? "; HDF5 decoded the chunks and checked what its filters check"
                        : ""));
  }
}

VerificationReport Verify(const std::string& path, const VerifyOptions& options) {
  VerificationReport report;
  report.path = remote::DisplayName(path);
  IndexOptions index_options;
  index_options.verify_table_entries = 0;  // every row is compared below, each reported
  index_options.file_locking = options.file_locking;
  index_options.check_labels = false;  // every bad label is listed below
  index_options.remote = options.remote;
  std::error_code ec;
  if (!IsRemoteLocation(path) && !std::filesystem::exists(path, ec)) {
    throw MakeError(ErrorCode::kNotFound, "{} does not exist", path);
  }
  // A remote object that is missing or refused (404, 403) is not damage, nor is a file that is
  // not HDF5 at all (a text file): nothing of an HDF5 file to judge, so thrown, as inspect and
  // the Loader throw it.
  {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    hdf5::CheckHdf5Start(path, remote::RemoteOpen{options.remote, ""});
  }
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
  report.own_size = index.own_size;
  report.jpeg_images = std::count_if(index.images.begin(), index.images.end(),
                                     [](const StoredImage& image) { return image.jpeg(); });
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
  std::sort(report.bad_images.begin(), report.bad_images.end(),
            [](const ImageProblem& a, const ImageProblem& b) { return a.row < b.row; });
  return report;
}

}  // namespace
}  // namespace h5feed::index

namespace h5feed {

VerificationReport VerifyFile(const std::string& path, const VerifyOptions& options) {
  return index::Verify(path, options);
}

}  // namespace h5feed
