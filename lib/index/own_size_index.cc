#include "index/own_size_index.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decode/decoder_table.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/handle.h"
#include "hdf5/integer_dataset.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

namespace schema = format::schema;

template <typename... Args>
[[noreturn]] void Damaged(const std::string& path, fmt::format_string<Args...> what,
                          Args&&... args) {
  throw MakeError(ErrorCode::kCorrupt, "{}: {}: the file is damaged; convert the source again",
                  path, fmt::format(what, std::forward<Args>(args)...));
}

// Reads dataset `name`, which must hold integers of T's size and signedness shaped (rows) or
// (rows, columns).
template <typename T>
std::vector<T> ReadTable(hid_t file, const char* name, int64_t rows, int64_t columns,
                         const std::string& path) {
  const std::string where = std::string("/") + name;
  if (!hdf5::LinkExists(file, name)) Damaged(path, "an own-size file without {}", where);
  const hdf5::Dataset dataset = hdf5::OpenDataset(file, where, path);
  const int64_t table[2] = {rows, columns};
  const std::span<const int64_t> shape(table, columns == 1 ? 1 : 2);
  std::optional<std::vector<T>> values = hdf5::ReadIntegers<T>(dataset.get(), shape, where);
  if (!values) {
    Damaged(path, "{} is not {}{} integers of {} bytes, as docs/format.md says", where, rows,
            (columns == 1 ? "" : " x " + std::to_string(columns)), sizeof(T));
  }
  return std::move(*values);
}

std::string Image(size_t n) { return "image " + std::to_string(n); }

}  // namespace

RowLocator CheckOwnSizeTable(const std::vector<uint64_t>& offsets,
                             const std::vector<uint64_t>& bytes, const std::vector<int32_t>& shapes,
                             const std::vector<uint8_t>& encodings, int64_t chunk_bytes,
                             int64_t chunks, int64_t max_side, const std::string& path) {
  const size_t n = offsets.size();
  if (bytes.size() != n || encodings.size() != n || shapes.size() != 3 * n) {
    Damaged(path, "the image table's datasets have different lengths");
  }
  if (chunk_bytes < 1) Damaged(path, "chunk_bytes is {}", chunk_bytes);
  const auto capacity = static_cast<uint64_t>(chunk_bytes);
  std::vector<StoredRow> table(n);
  std::vector<int64_t> first_rows;
  first_rows.reserve(static_cast<size_t>(chunks) + 1);
  uint64_t next = 0;  // where the next image must start if it continues the current chunk
  for (size_t i = 0; i < n; ++i) {
    const int32_t h = shapes[3 * i], w = shapes[3 * i + 1], c = shapes[3 * i + 2];
    if (h < 1 || w < 1 || (c != 1 && c != 3)) {
      Damaged(path, "{} has shape {} x {} x {}", Image(i), h, w, c);
    }
    // One channel count for the whole file, as every writer stores it: the batches have one.
    if (c != shapes[2]) {
      Damaged(path, "{} has {} channels and image 0 {}; a file's images all have the same",
              Image(i), c, shapes[2]);
    }
    const auto encoding = static_cast<ImageEncoding>(encodings[i]);
    const decode::ImageDecoder* decoder = decode::FindDecoder(encoding);
    if (decoder == nullptr) {
      Damaged(path, "{} has encoding {}, not one of {}", Image(i), encodings[i],
              decode::KnownEncodings());
    }
    const uint64_t raw = uint64_t(h) * uint64_t(w) * uint64_t(c);
    if ((max_side > 0 && std::max(h, w) > max_side) ||
        raw > static_cast<uint64_t>(io::limits::kMaxImageBytes)) {
      Damaged(
          path,
          "{} claims {} x {} x {}, more than the file's max_side ({}) or {} bytes decoded allow",
          Image(i), h, w, c, max_side, io::limits::kMaxImageBytes);
    }
    if (bytes[i] == 0 || !decoder->StoredSizeFits(ImageShape{h, w, c}, bytes[i])) {
      Damaged(path, "{} is stored in {} bytes for {} x {} x {}", Image(i), bytes[i], h, w, c);
    }
    const uint64_t offset = offsets[i];
    const uint64_t chunk = offset / capacity;
    if (offset % capacity == 0) {
      // Starts a chunk: the next one in order (no chunk is skipped or empty).
      if (chunk != first_rows.size()) {
        Damaged(path, "{} starts chunk {} after chunk {} was expected", Image(i), chunk,
                first_rows.size());
      }
      first_rows.push_back(static_cast<int64_t>(i));
    } else if (i == 0 || offset != next) {
      Damaged(
          path,
          "{} is at byte {}, not right after the image before it (byte {}) nor at the start of a "
          "chunk",
          Image(i), offset, next);
    }
    if (bytes[i] > capacity - offset % capacity) {
      Damaged(path, "{} ({} bytes at byte {}) crosses the end of its chunk of {} bytes", Image(i),
              bytes[i], offset, capacity);
    }
    next = offset + bytes[i];
    table[i] = StoredRow{offset - chunk * capacity, bytes[i], ImageShape{h, w, c}, encoding};
  }
  if (static_cast<int64_t>(first_rows.size()) != chunks) {
    Damaged(path, "its images fill {} chunks but /images holds {}", first_rows.size(), chunks);
  }
  first_rows.push_back(static_cast<int64_t>(n));
  return RowLocator(std::move(table), ChunkRows(std::move(first_rows)), chunk_bytes);
}

void ReadOwnSizeTable(hid_t file, int64_t samples, int64_t chunk_bytes, int64_t chunks,
                      DatasetIndex& index) {
  const std::string& path = index.path;
  const auto offsets = ReadTable<uint64_t>(file, schema::kImageOffsets, samples, 1, path);
  const auto bytes = ReadTable<uint64_t>(file, schema::kImageBytes, samples, 1, path);
  const auto shapes = ReadTable<int32_t>(file, schema::kImageShapes, samples, 3, path);
  const auto encodings = ReadTable<uint8_t>(file, schema::kImageEncodings, samples, 1, path);
  const int64_t max_side = hdf5::ReadInt64Attribute(file, schema::kAttrMaxSide);
  index.rows =
      CheckOwnSizeTable(offsets, bytes, shapes, encodings, chunk_bytes, chunks, max_side, path);
  index.shape = index.rows.largest();
  index.chunk_samples = index.rows.chunks().max_rows();
  index.max_side = max_side;
  index.encoding = hdf5::ReadStringAttribute(file, schema::kAttrEncoding);
}

}  // namespace h5feed::index
