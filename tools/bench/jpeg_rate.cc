// MeasureJpegRate (jpeg_rate.h).

#include "jpeg_rate.h"

#include <turbojpeg.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "make_error.h"
#include "source/open_chunk_source.h"

namespace h5feed::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct StoredJpeg {
  int64_t row = 0;
  StoredRow at;
  std::vector<uint8_t> bytes;
};

// Up to `most` JPEGs of the file, from its first chunks that hold any.
std::vector<StoredJpeg> SampleJpegs(const index::DatasetIndex& dataset, int64_t most) {
  std::vector<StoredJpeg> jpegs;
  const std::unique_ptr<source::ChunkSource> chunks =
      source::OpenChunkSource(dataset, source::ChunkSourceOptions{});
  std::vector<uint8_t> chunk;
  for (int64_t c = 0; c < dataset.chunk_count() && static_cast<int64_t>(jpegs.size()) < most; ++c) {
    bool read = false;
    for (int64_t row = dataset.first_row_of_chunk(c);
         row < dataset.first_row_of_chunk(c + 1) && static_cast<int64_t>(jpegs.size()) < most;
         ++row) {
      const StoredRow at = dataset.rows.at(row);
      if (at.encoding != ImageEncoding::kJpeg) continue;
      if (!read) {
        chunk.resize(static_cast<size_t>(chunks->chunk_bytes()));
        chunks->Read(c, chunk);
        read = true;
      }
      const auto first = chunk.begin() + static_cast<std::ptrdiff_t>(at.offset);
      jpegs.push_back(
          {row, at, std::vector<uint8_t>(first, first + static_cast<std::ptrdiff_t>(at.bytes))});
    }
  }
  return jpegs;
}

}  // namespace

JpegRate MeasureJpegRate(const std::string& path, int64_t max_images, int rounds,
                         const std::string& images_dataset) {
  index::IndexOptions options;
  options.images = images_dataset;
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, options);
  JpegRate rate;
  const int64_t stored = dataset.rows.count(ImageEncoding::kJpeg);
  if (stored == 0 || dataset.samples == 0) return rate;
  rate.share = static_cast<double>(stored) / static_cast<double>(dataset.samples);
  const std::vector<StoredJpeg> jpegs = SampleJpegs(dataset, max_images);
  rate.sampled = static_cast<int64_t>(jpegs.size());
  const std::unique_ptr<void, int (*)(tjhandle)> turbo(tjInitDecompress(), tjDestroy);
  std::vector<uint8_t> pixels;
  auto decode_all = [&] {
    for (const StoredJpeg& jpeg : jpegs) {
      const ImageShape& shape = jpeg.at.shape;
      pixels.resize(static_cast<size_t>(shape.height * shape.width * 3));
      if (tjDecompress2(turbo.get(), jpeg.bytes.data(),
                        static_cast<unsigned long>(jpeg.bytes.size()), pixels.data(),
                        static_cast<int>(shape.width), 0, static_cast<int>(shape.height), TJPF_RGB,
                        0) != 0) {
        throw MakeError(ErrorCode::kCorrupt, "row {} of {}: TurboJPEG cannot decode it ({})",
                        jpeg.row, dataset.path, tjGetErrorStr2(turbo.get()));
      }
    }
  };
  decode_all();
  double best = 1e300;
  for (int r = 0; r < std::max(1, rounds); ++r) {
    const auto start = Clock::now();
    decode_all();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  rate.images_per_s = best > 0 ? static_cast<double>(jpegs.size()) / best : 0;
  return rate;
}

}  // namespace h5feed::bench
