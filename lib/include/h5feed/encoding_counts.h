#pragma once
// Images counted by how each is stored (h5feed/image_encoding.h): what inspect, verify and a
// conversion report of a file of images at their own size. A report holds one count per
// encoding rather than a field per encoding, and EncodingCountsValue names each count after its
// decoder's key (the decoder table, lib/decode/decoder_table.h), so an encoding added there is
// counted, written as JSON and returned to Python by every report without touching any of them.
//
// A value type: copy it, compare it, hand it between threads like a std::vector.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "h5feed/image_encoding.h"
#include "h5feed/report_value.h"

namespace h5feed {

class EncodingCounts {
 public:
  void Add(ImageEncoding encoding, int64_t images = 1) {
    const auto at = static_cast<size_t>(encoding);
    if (at >= images_.size()) images_.resize(at + 1, 0);
    images_[at] += images;
  }

  int64_t of(ImageEncoding encoding) const {
    const auto at = static_cast<size_t>(encoding);
    return at < images_.size() ? images_[at] : 0;
  }

  int64_t total() const { return std::accumulate(images_.begin(), images_.end(), int64_t{0}); }

  // Equal when every encoding has the same count (a count never added equals 0).
  bool operator==(const EncodingCounts& other) const {
    const size_t n = std::max(images_.size(), other.images_.size());
    for (size_t at = 0; at < n; ++at) {
      const auto encoding = static_cast<ImageEncoding>(at);
      if (of(encoding) != other.of(encoding)) return false;
    }
    return true;
  }

 private:
  std::vector<int64_t> images_;  // by the encoding's value
};

// {"raw": n, "jpeg": m}: every encoding the decoder table knows, in the order of their values,
// under its decoder's key (ImageDecoder::key), 0 for one never counted. Counts of a value no
// decoder has are left out: a file holding one is damaged, which the report says apart.
ReportValue EncodingCountsValue(const EncodingCounts& counts);

}  // namespace h5feed
