#include "decode/jpeg_row_start.h"

#include <algorithm>
#include <cstring>

namespace h5feed::decode {
namespace {

constexpr uint8_t kTem = 0x01;
constexpr uint8_t kSof0 = 0xC0;  // baseline
constexpr uint8_t kSof1 = 0xC1;  // extended sequential, Huffman
constexpr uint8_t kDht = 0xC4;
constexpr uint8_t kDac = 0xCC;
constexpr uint8_t kRst0 = 0xD0;
constexpr uint8_t kRst7 = 0xD7;
constexpr uint8_t kSoi = 0xD8;
constexpr uint8_t kEoi = 0xD9;
constexpr uint8_t kSos = 0xDA;
constexpr uint8_t kDri = 0xDD;

int Big16(const uint8_t* at) { return at[0] << 8 | at[1]; }

bool IsFrame(uint8_t marker) {
  return marker >= 0xC0 && marker <= 0xCF && marker != kDht && marker != 0xC8 && marker != kDac;
}

// What the headers say, up to the scan's entropy-coded data.
struct Layout {
  size_t height_at = 0;  // the frame header's height field
  size_t data_at = 0;    // the first byte of entropy-coded data
  int64_t mcu_height = 0;
  int64_t mcus_per_row = 0;
  int64_t restart_interval = 0;
  bool chroma_upsampled_vertically = false;  // a component with fewer rows than another
};

// Reads the markers from SOI to the first SOS. False for anything CutAboveRow leaves whole.
bool ReadLayout(std::span<const uint8_t> jpeg, int64_t height, int64_t width, Layout& layout) {
  const size_t size = jpeg.size();
  if (size < 4 || jpeg[0] != 0xFF || jpeg[1] != kSoi) return false;
  size_t at = 2;
  int components = 0;
  int max_h = 0, max_v = 0, min_v = 16;
  while (true) {
    if (at + 4 > size || jpeg[at] != 0xFF) return false;
    while (at + 4 <= size && jpeg[at + 1] == 0xFF) ++at;  // fill bytes
    if (at + 4 > size) return false;
    const uint8_t marker = jpeg[at + 1];
    if (marker == kTem) {  // stands alone: no length
      at += 2;
      continue;
    }
    const size_t length = static_cast<size_t>(Big16(&jpeg[at + 2]));
    if (length < 2 || at + 2 + length > size) return false;
    const uint8_t* segment = &jpeg[at + 4];  // after the length
    if (IsFrame(marker)) {
      if ((marker != kSof0 && marker != kSof1) || length < 8) return false;
      components = segment[5];
      if (components < 1 || length != 8 + 3 * static_cast<size_t>(components)) return false;
      if (Big16(segment + 1) != height || Big16(segment + 3) != width) return false;
      layout.height_at = at + 5;
      for (int c = 0; c < components; ++c) {
        max_h = std::max(max_h, segment[7 + 3 * c] >> 4);
        max_v = std::max(max_v, segment[7 + 3 * c] & 15);
        min_v = std::min(min_v, segment[7 + 3 * c] & 15);
      }
    } else if (marker == kDri) {
      if (length != 4) return false;
      layout.restart_interval = Big16(segment);
    } else if (marker == kSos) {
      // One scan of every component (a single component's scan has MCUs of one 8 x 8 block).
      if (components == 0 || max_h < 1 || max_v < 1 || segment[0] != components) return false;
      const int64_t mcu_width = components == 1 ? 8 : 8 * max_h;
      layout.mcu_height = components == 1 ? 8 : 8 * max_v;
      layout.mcus_per_row = (width + mcu_width - 1) / mcu_width;
      layout.chroma_upsampled_vertically = components > 1 && min_v < max_v;
      layout.data_at = at + 2 + length;
      return layout.restart_interval == layout.mcus_per_row;
    } else if (marker == kEoi || (marker >= kRst0 && marker <= kRst7)) {
      return false;
    }
    at += 2 + length;
  }
}

// The next restart marker at or after `at` in entropy-coded data: its offset, or `size` when
// another marker (the end of the scan) or the data's end comes first.
size_t NextRestart(std::span<const uint8_t> data, size_t at) {
  const size_t size = data.size();
  while (at + 1 < size) {
    const void* found = std::memchr(&data[at], 0xFF, size - 1 - at);
    if (found == nullptr) return size;
    at = static_cast<size_t>(static_cast<const uint8_t*>(found) - data.data());
    const uint8_t next = data[at + 1];
    if (next >= kRst0 && next <= kRst7) return at;
    if (next != 0x00 && next != 0xFF) return size;  // EOI, or damage
    ++at;                                           // a stuffed 0xFF, or a fill byte
  }
  return size;
}

}  // namespace

int64_t CutAboveRow(std::span<const uint8_t> jpeg, int64_t height, int64_t width, int64_t row,
                    std::vector<uint8_t>& out) {
  Layout layout;
  if (row < 0 || row >= height || !ReadLayout(jpeg, height, width, layout)) return 0;
  // With chroma upsampled vertically, the cut's first row is not the original's: start above.
  const int64_t last_start = layout.chroma_upsampled_vertically ? row - 1 : row;
  const int64_t first_row = last_start / layout.mcu_height;
  if (first_row < 1) return 0;
  // The first MCU row's data starts after the marker that ends row first_row - 1: RST k ends
  // row k, numbered modulo 8.
  size_t at = layout.data_at;
  for (int64_t k = 0; k < first_row; ++k) {
    at = NextRestart(jpeg, at);
    if (at >= jpeg.size() || jpeg[at + 1] != kRst0 + k % 8) return 0;
    at += 2;
  }
  out.assign(jpeg.begin(), jpeg.begin() + static_cast<ptrdiff_t>(layout.data_at));
  const int64_t dropped = first_row * layout.mcu_height;
  const int64_t rest = height - dropped;
  out[layout.height_at] = static_cast<uint8_t>(rest >> 8);
  out[layout.height_at + 1] = static_cast<uint8_t>(rest & 0xFF);
  const size_t start = out.size();
  out.insert(out.end(), jpeg.begin() + static_cast<ptrdiff_t>(at), jpeg.end());
  const std::span<uint8_t> data(out.data() + start, out.size() - start);
  const int shift = static_cast<int>(first_row % 8);
  for (size_t marker = NextRestart(data, 0); marker < data.size();
       marker = NextRestart(data, marker + 2)) {
    data[marker + 1] = static_cast<uint8_t>(kRst0 + (data[marker + 1] - kRst0 - shift + 8) % 8);
  }
  return dropped;
}

}  // namespace h5feed::decode
