#include "image/area_resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace h5feed::converters::image {
namespace {

// Weights are integers summing to 2^14 per output sample. The vertical pass keeps 7
// fractional bits, so its results (at most 255 << 7) are non-negative signed 16-bit values,
// which SSE2's pmaddwd multiplies; the horizontal pass then sums at most 32640 * 2^14 < 2^31,
// so 32-bit accumulators never overflow.
constexpr int kWeightBits = 14;
constexpr int kOne = 1 << kWeightBits;
constexpr int kFractionBits = 7;
constexpr int kIntermediateShift = kWeightBits - kFractionBits;
constexpr int kFinalShift = kWeightBits + kFractionBits;

}  // namespace

// The source samples and weights of every output sample along one axis.
// Outside the anonymous namespace: AreaRowShrinker::State, a class of external linkage, holds one.
struct AxisTaps {
  std::vector<int> first;    // first source index of output i
  std::vector<int> count;    // number of source samples of output i
  std::vector<int> weights;  // output i's weights at [i * max_taps, i * max_taps + count[i])
  int max_taps = 0;
};

namespace {

// Output i covers source [i * scale, (i + 1) * scale); a source sample's weight is the length
// of its overlap with that interval over the interval's length (OpenCV's
// computeResizeAreaTab, with the same 1e-3 tolerance for edges that fall on a sample).
void ComputeTaps(int src_size, int dst_size, AxisTaps& taps) {
  const double scale = static_cast<double>(src_size) / dst_size;
  taps.max_taps = static_cast<int>(std::ceil(scale)) + 1;
  taps.first.assign(dst_size, 0);
  taps.count.assign(dst_size, 0);
  taps.weights.assign(static_cast<size_t>(dst_size) * taps.max_taps, 0);
  for (int i = 0; i < dst_size; ++i) {
    const double begin = i * scale;
    const double end = std::min(begin + scale, static_cast<double>(src_size));
    const double length = end - begin;
    int first = static_cast<int>(std::floor(begin + 1e-3));
    int last = std::min(static_cast<int>(std::ceil(end - 1e-3)), src_size) - 1;
    first = std::min(first, last);
    int* w = &taps.weights[static_cast<size_t>(i) * taps.max_taps];
    int sum = 0, largest = 0;
    for (int s = first; s <= last; ++s) {
      const double overlap = std::min<double>(s + 1, end) - std::max<double>(s, begin);
      const int weight = static_cast<int>(std::lround(std::max(overlap, 0.0) / length * kOne));
      w[s - first] = weight;
      sum += weight;
      if (weight > w[largest]) largest = s - first;
    }
    w[largest] += kOne - sum;  // rounding leftovers go to the largest tap: weights sum to 1
    taps.first[i] = first;
    taps.count[i] = last - first + 1;
  }
}

struct Scratch {
  AxisTaps rows, columns;
  int rows_key[2] = {0, 0}, columns_key[2] = {0, 0};  // sizes the taps were computed for
  std::vector<int16_t> intermediate;                  // one row shrunk vertically, 9.7 bits
};

// Output row y's source rows averaged, at 7 fractional bits, into `mid`. With SSE2, 16
// samples at a time, two source rows per pmaddwd ((a, b) sample pairs by (wa, wb) weight
// pairs), the sums kept in registers across the taps.
void VerticalPass(const uint8_t* src, size_t src_stride, const AxisTaps& rows, int y,
                  size_t row_samples, int16_t* mid) {
  const uint8_t* top = src + static_cast<size_t>(rows.first[y]) * src_stride;
  const int* wy = &rows.weights[static_cast<size_t>(y) * rows.max_taps];
  const int count = rows.count[y];
  size_t j = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i round = _mm_set1_epi32(1 << (kIntermediateShift - 1));
  for (; j + 16 <= row_samples; j += 16) {
    __m128i sum[4] = {round, round, round, round};
    for (int k = 0; k < count; k += 2) {
      const uint8_t* row_a = top + static_cast<size_t>(k) * src_stride + j;
      const bool pair = k + 1 < count;
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row_a));
      const __m128i b =
          pair ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(row_a + src_stride)) : zero;
      const int w_b = pair ? wy[k + 1] : 0;
      const __m128i weights = _mm_set1_epi32(
          static_cast<int32_t>((static_cast<uint32_t>(w_b) << 16) | static_cast<uint32_t>(wy[k])));
      const __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
      sum[0] = _mm_add_epi32(sum[0], _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), weights));
      sum[1] = _mm_add_epi32(sum[1], _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), weights));
      sum[2] = _mm_add_epi32(sum[2], _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), weights));
      sum[3] = _mm_add_epi32(sum[3], _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), weights));
    }
    for (int q = 0; q < 4; ++q) sum[q] = _mm_srai_epi32(sum[q], kIntermediateShift);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(mid + j), _mm_packs_epi32(sum[0], sum[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(mid + j + 8), _mm_packs_epi32(sum[2], sum[3]));
  }
#endif
  for (; j < row_samples; ++j) {
    int32_t sum = 1 << (kIntermediateShift - 1);
    for (int k = 0; k < count; ++k) sum += wy[k] * top[static_cast<size_t>(k) * src_stride + j];
    mid[j] = static_cast<int16_t>(sum >> kIntermediateShift);
  }
}

// One output row from one vertically shrunk row: each output pixel sums its taps, the three
// channels together. With SSE2, a tap is one 4-lane multiply-add (pmaddwd of (sample, 0)
// pairs by (weight, 0) pairs), about three times faster than the scalar loop.
void HorizontalPass(const int16_t* mid, const AxisTaps& columns, int dst_width, uint8_t* out) {
  int x = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i round = _mm_set1_epi32(1 << (kFinalShift - 1));
  // Every pixel but the last stores 4 bytes (the 4th is overwritten by the next pixel).
  for (; x + 1 < dst_width; ++x) {
    const int* wx = &columns.weights[static_cast<size_t>(x) * columns.max_taps];
    const int16_t* in = mid + static_cast<size_t>(columns.first[x]) * 3;
    __m128i sum = round;
    for (int k = 0; k < columns.count[x]; ++k, in += 3) {
      const __m128i samples =
          _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)), zero);
      sum = _mm_add_epi32(sum, _mm_madd_epi16(samples, _mm_set1_epi32(wx[k])));
    }
    const __m128i words = _mm_packs_epi32(_mm_srai_epi32(sum, kFinalShift), zero);
    const int32_t bytes = _mm_cvtsi128_si32(_mm_packus_epi16(words, zero));
    std::memcpy(out + 3 * x, &bytes, 4);
  }
#endif
  for (; x < dst_width; ++x) {
    const int* wx = &columns.weights[static_cast<size_t>(x) * columns.max_taps];
    const int16_t* in = mid + static_cast<size_t>(columns.first[x]) * 3;
    int32_t r = 1 << (kFinalShift - 1), g = r, b = r;
    for (int k = 0; k < columns.count[x]; ++k, in += 3) {
      r += wx[k] * in[0];
      g += wx[k] * in[1];
      b += wx[k] * in[2];
    }
    out[3 * x] = static_cast<uint8_t>(r >> kFinalShift);
    out[3 * x + 1] = static_cast<uint8_t>(g >> kFinalShift);
    out[3 * x + 2] = static_cast<uint8_t>(b >> kFinalShift);
  }
}

// Where each source row goes: the output rows it is a tap of are those from the first
// unfinished one up to the last whose taps start at or before it (taps are intervals whose
// starts and ends never decrease with the output row).
int MaxOpenRows(const AxisTaps& rows, int src_size) {
  int started = 0, finished = 0, most = 0;
  const int dst_size = static_cast<int>(rows.first.size());
  for (int s = 0; s < src_size; ++s) {
    while (started < dst_size && rows.first[started] <= s) ++started;
    most = std::max(most, started - finished);
    while (finished < started && rows.first[finished] + rows.count[finished] - 1 <= s) {
      ++finished;
    }
  }
  return std::max(most, 1);
}

}  // namespace

struct AreaRowShrinker::State {
  AxisTaps rows, columns;
  int src_height = 0, dst_height = 0, dst_width = 0;
  size_t row_samples = 0;
  uint8_t* dst = nullptr;
  size_t dst_stride = 0;
  int next_source = 0;  // the source row AddRow takes next
  int started = 0;      // output rows whose sums are open or done
  int finished = 0;     // output rows written
  // The sums of the open output rows (row y in slot y % open_rows), as VerticalPass forms them
  // before its shift: 32-bit, rounding term included.
  int open_rows = 1;
  std::vector<int32_t> sums;
  std::vector<int16_t> mid;  // a finished row at 7 fractional bits, plus HorizontalPass's spare

  int32_t* Sums(int y) { return sums.data() + static_cast<size_t>(y % open_rows) * row_samples; }
};

AreaRowShrinker::AreaRowShrinker(int src_height, int src_width, int dst_height, int dst_width,
                                 uint8_t* dst, size_t dst_stride)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  ComputeTaps(src_height, dst_height, s.rows);
  ComputeTaps(src_width, dst_width, s.columns);
  s.src_height = src_height;
  s.dst_height = dst_height;
  s.dst_width = dst_width;
  s.row_samples = static_cast<size_t>(src_width) * 3;
  s.dst = dst;
  s.dst_stride = dst_stride;
  s.open_rows = MaxOpenRows(s.rows, src_height);
  s.sums.resize(static_cast<size_t>(s.open_rows) * s.row_samples);
  s.mid.assign(s.row_samples + 3, 0);
}

AreaRowShrinker::~AreaRowShrinker() = default;

void AreaRowShrinker::AddRow(const uint8_t* row) {
  State& s = *state_;
  const int source = s.next_source++;
  while (s.started < s.dst_height && s.rows.first[s.started] <= source) {
    std::fill_n(s.Sums(s.started), s.row_samples, int32_t{1} << (kIntermediateShift - 1));
    ++s.started;
  }
  for (int y = s.finished; y < s.started; ++y) {
    const int tap = source - s.rows.first[y];
    if (tap >= s.rows.count[y]) continue;
    const int32_t weight = s.rows.weights[static_cast<size_t>(y) * s.rows.max_taps + tap];
    int32_t* sums = s.Sums(y);
    for (size_t j = 0; j < s.row_samples; ++j) sums[j] += weight * row[j];
  }
  while (s.finished < s.started &&
         s.rows.first[s.finished] + s.rows.count[s.finished] - 1 <= source) {
    const int32_t* sums = s.Sums(s.finished);
    for (size_t j = 0; j < s.row_samples; ++j) {
      s.mid[j] = static_cast<int16_t>(sums[j] >> kIntermediateShift);
    }
    HorizontalPass(s.mid.data(), s.columns, s.dst_width,
                   s.dst + static_cast<size_t>(s.finished) * s.dst_stride);
    ++s.finished;
  }
}

bool AreaRowShrinker::done() const { return state_->finished == state_->dst_height; }

int64_t AreaRowShrinker::ScratchBytes(int src_height, int src_width, int dst_height,
                                      int dst_width) {
  // Taps: first, count and max_taps weights per output sample, max_taps = ceil(scale) + 1.
  const auto taps = [](int64_t src, int64_t dst) { return 4 * dst * ((src + dst - 1) / dst + 3); };
  const int64_t row_samples = int64_t{src_width} * 3;
  // At most two output rows are open at once when shrinking; three allows for the edges that
  // ComputeTaps's tolerance moves.
  return taps(src_height, dst_height) + taps(src_width, dst_width) + 3 * 4 * row_samples +
         2 * (row_samples + 3) + 4096;
}

void AreaResize(const uint8_t* src, int src_height, int src_width, size_t src_stride, uint8_t* dst,
                int dst_height, int dst_width, size_t dst_stride) {
  thread_local Scratch scratch;
  // A conversion resizes thousands of images between the same few sizes: the taps are
  // recomputed only when the sizes change.
  if (scratch.rows_key[0] != src_height || scratch.rows_key[1] != dst_height) {
    ComputeTaps(src_height, dst_height, scratch.rows);
    scratch.rows_key[0] = src_height;
    scratch.rows_key[1] = dst_height;
  }
  if (scratch.columns_key[0] != src_width || scratch.columns_key[1] != dst_width) {
    ComputeTaps(src_width, dst_width, scratch.columns);
    scratch.columns_key[0] = src_width;
    scratch.columns_key[1] = dst_width;
  }
  const size_t row_samples = static_cast<size_t>(src_width) * 3;
  // One spare pixel: the horizontal pass loads 4 samples for a 3-sample pixel.
  scratch.intermediate.resize(row_samples + 3);
  int16_t* mid = scratch.intermediate.data();
  // Vertical first, so the per-pixel horizontal pass runs on dst_height rows rather than
  // src_height, one intermediate row at a time (it stays in L1).
  for (int y = 0; y < dst_height; ++y) {
    VerticalPass(src, src_stride, scratch.rows, y, row_samples, mid);
    HorizontalPass(mid, scratch.columns, dst_width, dst + static_cast<size_t>(y) * dst_stride);
  }
}

}  // namespace h5feed::converters::image
