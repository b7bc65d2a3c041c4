#pragma once
// Shrinks an 8-bit RGB image by area averaging: each output pixel is the mean of the source
// area it covers, partly covered pixels weighted by their coverage. This is OpenCV's
// INTER_AREA (results within 1 of cv::resize), separable and in fixed point: OpenCV 4.6 runs
// INTER_AREA at non-integer ratios through a float path that takes ~1 ms for 300x300 ->
// 224x224, longer than decoding the JPEG; this takes about a tenth of that.
//
// Thread-safety: reentrant; scratch rows are per thread and reused.

#include <cstddef>
#include <cstdint>
#include <memory>

namespace h5feed::converters::image {

// `src` is src_height x src_width RGB with rows `src_stride` bytes apart; `dst` likewise.
// Requires 1 <= dst_height <= src_height and 1 <= dst_width <= src_width (an axis of equal
// size is copied unchanged along that axis).
void AreaResize(const uint8_t* src, int src_height, int src_width, size_t src_stride, uint8_t* dst,
                int dst_height, int dst_width, size_t dst_stride);

// The same shrink for an image that arrives one row at a time, top to bottom, holding memory
// proportional to its width instead of its area: for images too large to decode whole (a
// 20990 x 29700 PNG). Each source row is added, weighted, into the output rows it overlaps
// (one or two), and an output row is written as soon as its last source row is in. The sums are
// AreaResize's, in the same integers, so the pixels are AreaResize's exactly.
//
// Thread-safety: one instance per thread; it owns its scratch and writes only `dst`.
class AreaRowShrinker {
 public:
  // Same sizes and requirements as AreaResize; output rows go to `dst`, `dst_stride` apart.
  AreaRowShrinker(int src_height, int src_width, int dst_height, int dst_width, uint8_t* dst,
                  size_t dst_stride);
  ~AreaRowShrinker();
  AreaRowShrinker(const AreaRowShrinker&) = delete;
  AreaRowShrinker& operator=(const AreaRowShrinker&) = delete;

  // Adds the next source row: src_width RGB pixels.
  void AddRow(const uint8_t* row);
  // Whether every output row has been written (all source rows added).
  bool done() const;

  // An upper bound of the memory an instance holds for these sizes.
  static int64_t ScratchBytes(int src_height, int src_width, int dst_height, int dst_width);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace h5feed::converters::image
