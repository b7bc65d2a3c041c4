#include "pipeline/row_copy.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace h5feed::pipeline {
namespace {

constexpr uint8_t kGuard = 0xA5;

// Copies `bytes` into a guarded buffer at `offset` (every alignment of the destination) and
// checks the copy and that nothing around it was written.
void CheckCopy(size_t bytes, size_t offset, SlotWrites writes) {
  std::vector<uint8_t> from(bytes + 3);
  for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<uint8_t> to(bytes + offset + 64, kGuard);
  CopyRow(to.data() + offset, from.data() + 3, bytes, writes);  // an unaligned source too
  FinishSlotWrites(writes);
  for (size_t i = 0; i < offset; ++i) REQUIRE(to[i] == kGuard);
  for (size_t i = 0; i < bytes; ++i) REQUIRE(to[offset + i] == from[3 + i]);
  for (size_t i = offset + bytes; i < to.size(); ++i) REQUIRE(to[i] == kGuard);
}

TEST_CASE("rows are copied exactly with both kinds of store, whatever their size and alignment") {
  for (SlotWrites writes : {SlotWrites::kCached, SlotWrites::kStreaming}) {
    CAPTURE(static_cast<int>(writes));
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{63},
                         size_t{64}, size_t{65}, size_t{127}, size_t{3072}, size_t{116412}}) {
      for (size_t offset = 0; offset < 17; ++offset) {
        CAPTURE(bytes);
        CAPTURE(offset);
        CheckCopy(bytes, offset, writes);
      }
    }
  }
}

TEST_CASE("slots of several MiB are written with streaming stores, small ones with cached ones") {
  CHECK(SlotWritesFor(256 * 3072) == SlotWrites::kCached);  // a CIFAR-shaped batch: 786 KB
  CHECK(SlotWritesFor(0) == SlotWrites::kCached);
#if defined(__SSE2__)
  CHECK(SlotWritesFor(256 * 116412) == SlotWrites::kStreaming);  // CelebA-shaped: 30 MB
#else
  CHECK(SlotWritesFor(256 * 116412) == SlotWrites::kCached);  // no streaming stores here
#endif
}

}  // namespace
}  // namespace h5feed::pipeline
