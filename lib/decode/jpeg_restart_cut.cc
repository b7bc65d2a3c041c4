#include "decode/jpeg_restart_cut.h"

#include <algorithm>
#include <cstring>
#include <optional>

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

bool IsRestart(uint8_t marker) { return marker >= kRst0 && marker <= kRst7; }

bool IsFrame(uint8_t marker) {
  return marker >= 0xC0 && marker <= 0xCF && marker != kDht && marker != 0xC8 && marker != kDac;
}

// What the headers say, up to the scan's entropy-coded data.
struct Layout {
  size_t height_at = 0;  // the frame header's height field (its width follows)
  size_t data_at = 0;    // the first byte of entropy-coded data
  int64_t mcu_height = 0;
  int64_t mcu_width = 0;
  int64_t mcus_per_row = 0;
  int64_t restart_interval = 0;
  bool chroma_upsampled_vertically = false;    // a component with fewer rows than another
  bool chroma_upsampled_horizontally = false;  // ... with fewer columns
};

// Reads the markers from SOI to the first SOS. False for anything CutAroundBox leaves whole.
bool ReadLayout(std::span<const uint8_t> jpeg, int64_t height, int64_t width, Layout& layout) {
  const size_t size = jpeg.size();
  if (size < 4 || jpeg[0] != 0xFF || jpeg[1] != kSoi) return false;
  size_t at = 2;
  int components = 0;
  int max_h = 0, max_v = 0, min_h = 16, min_v = 16;
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
        min_h = std::min(min_h, segment[7 + 3 * c] >> 4);
        min_v = std::min(min_v, segment[7 + 3 * c] & 15);
      }
    } else if (marker == kDri) {
      if (length != 4) return false;
      layout.restart_interval = Big16(segment);
    } else if (marker == kSos) {
      // One scan of every component (a single component's scan has MCUs of one 8 x 8 block).
      if (components == 0 || max_h < 1 || max_v < 1 || segment[0] != components) return false;
      layout.mcu_width = components == 1 ? 8 : 8 * max_h;
      layout.mcu_height = components == 1 ? 8 : 8 * max_v;
      layout.mcus_per_row = (width + layout.mcu_width - 1) / layout.mcu_width;
      layout.chroma_upsampled_vertically = components > 1 && min_v < max_v;
      layout.chroma_upsampled_horizontally = components > 1 && min_h < max_h;
      layout.data_at = at + 2 + length;
      return layout.restart_interval > 0 && layout.mcus_per_row % layout.restart_interval == 0;
    } else if (marker == kEoi || IsRestart(marker)) {
      return false;
    }
    at += 2 + length;
  }
}

// The next marker at or after `at` in entropy-coded data (a restart marker, or the one that
// ends the scan): its offset, or the data's size when there is none.
size_t NextMarker(std::span<const uint8_t> data, size_t at) {
  const size_t size = data.size();
  while (at + 1 < size) {
    const void* found = std::memchr(&data[at], 0xFF, size - 1 - at);
    if (found == nullptr) return size;
    at = static_cast<size_t>(static_cast<const uint8_t*>(found) - data.data());
    const uint8_t next = data[at + 1];
    if (next != 0x00 && next != 0xFF) return at;
    ++at;  // a stuffed 0xFF, or a fill byte
  }
  return size;
}

void Put16(std::vector<uint8_t>& out, size_t at, int64_t value) {
  out[at] = static_cast<uint8_t>(value >> 8);
  out[at + 1] = static_cast<uint8_t>(value & 0xFF);
}

// The first and last unit (MCU row, or segment) of `unit` pixels holding pixels [first, last]
// of an axis of `extent` pixels, and one more pixel on each side with `margin`, within the image.
struct Units {
  int64_t first = 0, last = 0;
};

Units UnitsAround(int64_t first, int64_t last, int64_t extent, int64_t unit, bool margin) {
  if (margin) {
    first = std::max<int64_t>(first - 1, 0);
    last = std::min(last + 1, extent - 1);
  }
  return {first / unit, last / unit};
}

}  // namespace

std::optional<PixelBox> CutAroundBox(std::span<const uint8_t> jpeg, int64_t height, int64_t width,
                                     const PixelBox& box, std::vector<uint8_t>& out) {
  Layout layout;
  if (box.top < 0 || box.left < 0 || box.height <= 0 || box.width <= 0 ||
      box.top + box.height > height || box.left + box.width > width ||
      !ReadLayout(jpeg, height, width, layout)) {
    return std::nullopt;
  }
  const int64_t segments_per_row = layout.mcus_per_row / layout.restart_interval;
  const int64_t segment_width = layout.restart_interval * layout.mcu_width;
  const int64_t mcu_rows = (height + layout.mcu_height - 1) / layout.mcu_height;
  const Units rows = UnitsAround(box.top, box.top + box.height - 1, height, layout.mcu_height,
                                 layout.chroma_upsampled_vertically);
  Units columns = UnitsAround(box.left, box.left + box.width - 1, width, segment_width,
                              layout.chroma_upsampled_horizontally);
  const auto part_width = [&] {
    return std::min(width, (columns.last + 1) * segment_width) - columns.first * segment_width;
  };
  // libjpeg-turbo's fancy upsampling runs only on rows of more than 2 chroma samples (at the
  // scale decoded; never at 1/8): a part that narrow would be upsampled otherwise than the
  // image. It is kept wider than 16 pixels, which is more than 2 at 1/4.
  while (layout.chroma_upsampled_horizontally && part_width() <= 16 &&
         (columns.first > 0 || columns.last < segments_per_row - 1)) {
    if (columns.first > 0) {
      --columns.first;
    } else {
      ++columns.last;
    }
  }
  if (rows.first == 0 && rows.last == mcu_rows - 1 && columns.first == 0 &&
      columns.last == segments_per_row - 1) {
    return std::nullopt;
  }
  // Where the data of each segment up to the part's last ends: at the marker after it, RST g
  // (modulo 8) after segment g, the scan's end after the image's last.
  const int64_t last_segment = rows.last * segments_per_row + columns.last;
  const int64_t segments = mcu_rows * segments_per_row;
  // Grown as markers are found: a frame's size claims up to 67 million segments, the data's
  // length bounds the markers it holds.
  std::vector<size_t> ends;
  ends.reserve(std::min(static_cast<size_t>(last_segment) + 1, jpeg.size() / 2));
  size_t at = layout.data_at;
  for (int64_t g = 0; g <= last_segment; ++g) {
    const size_t marker = NextMarker(jpeg, at);
    if (marker >= jpeg.size()) return std::nullopt;
    const uint8_t code = jpeg[marker + 1];
    if (g == segments - 1 ? IsRestart(code) : code != kRst0 + g % 8) return std::nullopt;
    ends.push_back(marker);
    at = marker + 2;
  }

  const PixelBox part{.top = rows.first * layout.mcu_height,
                      .left = columns.first * segment_width,
                      .height = std::min(height, (rows.last + 1) * layout.mcu_height) -
                                rows.first * layout.mcu_height,
                      .width = part_width()};
  out.assign(jpeg.begin(), jpeg.begin() + static_cast<ptrdiff_t>(layout.data_at));
  Put16(out, layout.height_at, part.height);
  Put16(out, layout.height_at + 2, part.width);
  int64_t restarts = 0;  // markers written: each is numbered RST0 ... RST7 in turn
  const auto restart = [&restarts] { return static_cast<uint8_t>(kRst0 + restarts++ % 8); };
  for (int64_t row = rows.first; row <= rows.last; ++row) {
    if (row > rows.first) out.insert(out.end(), {0xFF, restart()});
    const int64_t first = row * segments_per_row + columns.first;
    const int64_t last = row * segments_per_row + columns.last;
    const size_t begin = first == 0 ? layout.data_at : ends[static_cast<size_t>(first - 1)] + 2;
    const size_t written = out.size();
    out.insert(out.end(), jpeg.begin() + static_cast<ptrdiff_t>(begin),
               jpeg.begin() + static_cast<ptrdiff_t>(ends[static_cast<size_t>(last)]));
    for (int64_t g = first; g < last; ++g) {  // the markers between the row's segments
      out[written + (ends[static_cast<size_t>(g)] - begin) + 1] = restart();
    }
  }
  out.insert(out.end(), {0xFF, kEoi});
  return part;
}

}  // namespace h5feed::decode
