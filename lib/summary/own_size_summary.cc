// SummarizeOwnSize (own_size_summary.h).

#include "summary/own_size_summary.h"

#include <algorithm>
#include <utility>

#include "decode/decoder_table.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/integer_dataset.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::summary {
namespace {

namespace schema = format::schema;

// Of `values` (reordered): the smallest, the median and the largest.
SizeSpread Spread(std::vector<int64_t>& values) {
  if (values.empty()) return {};
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  SizeSpread spread{*min, 0, *max};
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  spread.median = *middle;
  return spread;
}

// Whether an h x w frame counts as square: |h - w| <= 5% of the longer side, in integers.
bool Square(int64_t h, int64_t w) {
  return 20 * (std::max(h, w) - std::min(h, w)) <= std::max(h, w);
}

// One row per image, or a note saying what the dataset holds instead.
bool Rows(const std::vector<int64_t>& values, int64_t samples, int64_t columns, const char* name,
          OwnSizeSummary& s) {
  if (static_cast<int64_t>(values.size()) == samples * columns) return true;
  s.notes.push_back(std::string("/") + name + " holds " + std::to_string(values.size()) +
                    " values for " + std::to_string(samples) + " images" +
                    (columns > 1 ? " of " + std::to_string(columns) : "") +
                    ": the file is damaged (h5feed verify)");
  return false;
}

void SummarizeShapes(hid_t file, int64_t samples, const std::string& path, OwnSizeSummary& s) {
  const std::vector<int64_t> shapes = hdf5::ReadIntegerDataset(file, schema::kImageShapes, path);
  if (!Rows(shapes, samples, 3, schema::kImageShapes, s)) return;
  std::vector<int64_t> heights(static_cast<size_t>(samples)), widths(heights.size());
  for (size_t i = 0; i < heights.size(); ++i) {
    const int64_t h = shapes[3 * i], w = shapes[3 * i + 1], c = shapes[3 * i + 2];
    heights[i] = h;
    widths[i] = w;
    if (h > 0 && w > 0 && c > 0) s.pixel_bytes += uint64_t(h) * uint64_t(w) * uint64_t(c);
    if (c == 1) ++s.gray_images;
    if (Square(h, w)) {
      ++s.aspect.square;
    } else if (h > w) {
      ++s.aspect.portrait;
    } else {
      ++s.aspect.landscape;
    }
  }
  s.height = Spread(heights);
  s.width = Spread(widths);
}

void SummarizeEncodings(hid_t file, int64_t samples, const std::string& path, OwnSizeSummary& s) {
  const std::vector<int64_t> encodings =
      hdf5::ReadIntegerDataset(file, schema::kImageEncodings, path);
  if (!Rows(encodings, samples, 1, schema::kImageEncodings, s)) return;
  int64_t unknown = 0;
  for (int64_t e : encodings) {
    const auto encoding = static_cast<schema::ImageEncoding>(e);
    if (e < 0 || e > 255 || decode::FindDecoder(encoding) == nullptr) {
      ++unknown;
    } else {
      s.encodings.Add(encoding);
    }
  }
  if (unknown > 0) {
    s.notes.push_back(std::to_string(unknown) + " images have an encoding that is not one of " +
                      decode::KnownEncodings() + ": the file is damaged (h5feed verify)");
  }
}

// Images per chunk from where each image starts: chunk offset / C.
void SummarizeChunks(hid_t file, int64_t samples, const std::string& path, OwnSizeSummary& s) {
  const std::vector<int64_t> offsets = hdf5::ReadIntegerDataset(file, schema::kImageOffsets, path);
  if (!Rows(offsets, samples, 1, schema::kImageOffsets, s)) return;
  std::vector<int64_t> per_chunk(static_cast<size_t>(s.chunks));
  int64_t outside = 0;
  for (int64_t offset : offsets) {
    const int64_t chunk = offset / s.chunk_bytes;
    if (offset < 0 || chunk >= s.chunks) {
      ++outside;
    } else {
      ++per_chunk[static_cast<size_t>(chunk)];
    }
  }
  if (outside > 0) {
    s.notes.push_back(std::to_string(outside) + " images start outside the " +
                      std::to_string(s.chunks) +
                      " chunks of /images: the file is damaged (h5feed verify)");
  }
  if (!per_chunk.empty()) {
    const auto [fewest, most] = std::minmax_element(per_chunk.begin(), per_chunk.end());
    s.min_images_per_chunk = *fewest;
    s.max_images_per_chunk = *most;
    s.mean_images_per_chunk = static_cast<double>(samples) / static_cast<double>(s.chunks);
  }
}

}  // namespace

OwnSizeSummary SummarizeOwnSize(hid_t file, int64_t samples, int64_t images_bytes,
                                const std::string& path) {
  io::limits::CheckRowCount(samples, "dataset image_shapes in " + path);
  OwnSizeSummary s;
  s.chunk_bytes = hdf5::ReadInt64Attribute(file, schema::kAttrChunkBytes);
  if (s.chunk_bytes < 1) {
    throw MakeError(ErrorCode::kCorrupt, "{}: attribute chunk_bytes is {}, not positive", path,
                    s.chunk_bytes);
  }
  s.chunks = images_bytes / s.chunk_bytes;
  if (images_bytes % s.chunk_bytes != 0) {
    s.notes.push_back("/images holds " + std::to_string(images_bytes) +
                      " bytes, not a whole number of chunks of " + std::to_string(s.chunk_bytes) +
                      ": the file is damaged (h5feed verify)");
  }
  if (hdf5::HasAttribute(file, schema::kAttrMaxSide)) {
    s.max_side = hdf5::ReadInt64Attribute(file, schema::kAttrMaxSide);
  }
  if (hdf5::HasAttribute(file, schema::kAttrEncoding)) {
    s.encoding = hdf5::ReadStringAttribute(file, schema::kAttrEncoding);
  }
  if (hdf5::HasAttribute(file, schema::kAttrSmartThreshold)) {
    s.smart_threshold = hdf5::ReadInt64Attribute(file, schema::kAttrSmartThreshold);
  }
  // One dataset at a time, each freed before the next is read.
  SummarizeShapes(file, samples, path, s);
  SummarizeEncodings(file, samples, path, s);
  {
    const std::vector<int64_t> bytes = hdf5::ReadIntegerDataset(file, schema::kImageBytes, path);
    if (Rows(bytes, samples, 1, schema::kImageBytes, s)) {
      for (int64_t b : bytes) s.image_bytes += b > 0 ? static_cast<uint64_t>(b) : 0;
    }
  }
  SummarizeChunks(file, samples, path, s);
  if (s.chunks > 0) {
    s.chunk_fill = static_cast<double>(s.image_bytes) /
                   (static_cast<double>(s.chunks) * static_cast<double>(s.chunk_bytes));
  }
  return s;
}

}  // namespace h5feed::summary
