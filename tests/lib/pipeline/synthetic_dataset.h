#pragma once
// A dataset that exists only as a formula, for pipeline tests: byte j of row r is
// Pixel(r, j), the label of row r is r % 10. Load() is a ChunkCache::LoadFunction that
// decodes a chunk from the formula, optionally failing for chosen chunks with kCorrupt and
// counting its calls.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/error.h"
#include "h5feed/image_shape.h"

namespace h5feed::testing {

class SyntheticDataset {
 public:
  SyntheticDataset(int64_t samples, int64_t chunk_samples, ImageShape shape)
      : samples_(samples), chunk_samples_(chunk_samples), shape_(shape) {
    for (int64_t r = 0; r < samples; ++r) labels_.push_back(r % 10);
  }

  static uint8_t Pixel(int64_t row, int64_t byte) {
    return static_cast<uint8_t>((row * 131 + byte * 7 + (row >> 8)) & 0xff);
  }

  int64_t samples() const { return samples_; }
  int64_t chunk_samples() const { return chunk_samples_; }
  int64_t chunk_count() const { return (samples_ + chunk_samples_ - 1) / chunk_samples_; }
  int64_t chunk_bytes() const { return chunk_samples_ * shape_.bytes(); }
  const ImageShape& shape() const { return shape_; }
  std::span<const int64_t> labels() const { return labels_; }

  void Corrupt(int64_t chunk) {
    std::lock_guard lock(mutex_);
    corrupt_.insert(chunk);
  }
  int64_t loads() const { return loads_.load(); }

  cache::ChunkCache::LoadFunction LoadFunction() {
    return [this](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
      return Load(chunk, target.Buffer());
    };
  }

  // Called at the start of every Load, on the loading thread (tests observe or slow loads).
  std::function<void(int64_t chunk)> before_load;

  cache::LoadResult Load(int64_t chunk, std::span<uint8_t> dest) {
    if (before_load) before_load(chunk);
    ++loads_;
    {
      std::lock_guard lock(mutex_);
      if (corrupt_.count(chunk)) {
        throw Error(ErrorCode::kCorrupt,
                    "synthetic.h5:/images: chunk " + std::to_string(chunk) + " is corrupt");
      }
    }
    const int64_t bytes = shape_.bytes();
    std::memset(dest.data(), 0, dest.size());
    for (int64_t k = 0; k < chunk_samples_; ++k) {
      const int64_t row = chunk * chunk_samples_ + k;
      if (row >= samples_) break;
      for (int64_t j = 0; j < bytes; ++j) dest[static_cast<size_t>(k * bytes + j)] = Pixel(row, j);
    }
    return {static_cast<uint64_t>(dest.size()), static_cast<uint64_t>(dest.size())};
  }

  // True when `image` (one sample's bytes) holds row `row`.
  bool Holds(std::span<const uint8_t> image, int64_t row) const {
    for (size_t j = 0; j < image.size(); ++j) {
      if (image[j] != Pixel(row, static_cast<int64_t>(j))) return false;
    }
    return true;
  }

 private:
  int64_t samples_;
  int64_t chunk_samples_;
  ImageShape shape_;
  std::vector<int64_t> labels_;
  std::mutex mutex_;
  std::set<int64_t> corrupt_;
  std::atomic<int64_t> loads_{0};
};

}  // namespace h5feed::testing
