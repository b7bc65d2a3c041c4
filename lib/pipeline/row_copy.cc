#include "pipeline/row_copy.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace h5feed::pipeline {
namespace {

// Slots at least this large are written with streaming stores: above the slot size where the
// two kinds of store break even, about a core's share of the last-level cache (docs/reader.md,
// "What it costs").
constexpr size_t kStreamingSlotBytes = size_t{4} << 20;

#if defined(__SSE2__)
void CopyStreaming(uint8_t* to, const uint8_t* from, size_t bytes) {
  // Streaming stores need 16-byte aligned destinations: the head up to that goes by memcpy.
  const size_t head = std::min<size_t>((16 - (reinterpret_cast<uintptr_t>(to) & 15)) & 15, bytes);
  std::memcpy(to, from, head);
  size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 48), d);
  }
  std::memcpy(to + i, from + i, bytes - i);
}
#endif

}  // namespace

SlotWrites SlotWritesFor(size_t slot_image_bytes) {
#if defined(__SSE2__)
  return slot_image_bytes >= kStreamingSlotBytes ? SlotWrites::kStreaming : SlotWrites::kCached;
#else
  (void)slot_image_bytes;
  return SlotWrites::kCached;  // no portable streaming store: ordinary copies
#endif
}

void CopyRow(uint8_t* to, const uint8_t* from, size_t bytes, SlotWrites writes) {
#if defined(__SSE2__)
  if (writes == SlotWrites::kStreaming) {
    CopyStreaming(to, from, bytes);
    return;
  }
#endif
  (void)writes;
  std::memcpy(to, from, bytes);
}

void FinishSlotWrites(SlotWrites writes) {
#if defined(__SSE2__)
  if (writes == SlotWrites::kStreaming) _mm_sfence();
#else
  (void)writes;
#endif
}

}  // namespace h5feed::pipeline
