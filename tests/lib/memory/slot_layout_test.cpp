#include "memory/slot_layout.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "float_slots.h"
#include "h5feed/error.h"

namespace h5feed::memory {
namespace {

bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % SlotLayout::kRegionAlignment == 0;
}

TEST_CASE("a slot holds images, labels and indices in aligned, disjoint regions") {
  SlotLayout layout(5, {3, 3, 3}, SlotContents{});  // 27-byte images: nothing is naturally aligned
  alignas(256) static uint8_t slot[4096];
  REQUIRE(layout.bytes() <= sizeof(slot));
  SlotView view = layout.View(slot);
  CHECK(view.images.size() == 5 * 27);
  CHECK(view.labels.size() == 5);
  CHECK(view.indices.size() == 5);
  CHECK(view.output.empty());
  CHECK(Aligned(view.images.data()));
  CHECK(Aligned(view.labels.data()));
  CHECK(Aligned(view.indices.data()));
  CHECK(reinterpret_cast<uint8_t*>(view.labels.data()) >= view.images.data() + view.images.size());
  CHECK(view.indices.data() >= view.labels.data() + view.labels.size());
  CHECK(reinterpret_cast<uint8_t*>(view.indices.data() + 5) <= slot + layout.bytes());
}

TEST_CASE("a normalizing slot adds a float region after the others") {
  SlotLayout plain(4, {8, 8, 3}, SlotContents{});
  SlotLayout layout(4, {8, 8, 3}, testing::FloatImages({8, 8, 3}));
  std::vector<uint8_t> storage(layout.bytes() + 256);
  auto base = reinterpret_cast<uintptr_t>(storage.data());
  std::span<uint8_t> slot(storage.data() + (256 - base % 256) % 256, layout.bytes());
  SlotView view = layout.View(slot);
  CHECK(testing::Floats(view.output).size() == 4 * 8 * 8 * 3);
  CHECK(Aligned(view.output.data()));
  CHECK(view.output.data() >= reinterpret_cast<uint8_t*>(view.indices.data() + 4));
  CHECK(layout.bytes() == plain.bytes() + 4 * 8 * 8 * 3 * sizeof(float));
}

TEST_CASE("array fields have a region each after the labels group, before the float images") {
  SlotContents contents = testing::FloatImages({3, 3, 3});
  contents.row_orders = 2;
  contents.field_row_bytes = {40, 3, 8};
  SlotContents without = contents;
  without.field_row_bytes.clear();
  const SlotLayout layout(5, {3, 3, 3}, contents);
  const SlotLayout plain(5, {3, 3, 3}, without);
  CHECK(layout.fields() == 3);
  CHECK(layout.field_row_bytes(1) == 3);
  // The GPU stage's group (labels, indices, orders) is unchanged: the fields are not in it.
  CHECK(layout.labels_group_bytes() == plain.labels_group_bytes());
  CHECK(layout.bytes() == plain.bytes() + 3 * 256);  // each region under 256 bytes here
  CHECK(SlotLayout::Bytes(5, 27, contents) == layout.bytes());
  std::vector<uint8_t> storage(layout.bytes() + 256);
  auto base = reinterpret_cast<uintptr_t>(storage.data());
  std::span<uint8_t> slot(storage.data() + (256 - base % 256) % 256, layout.bytes());
  const SlotView view = layout.View(slot);
  REQUIRE(view.fields.size() == 3);
  const uint8_t* end = reinterpret_cast<uint8_t*>(view.orders.data() + view.orders.size());
  for (size_t k = 0; k < 3; ++k) {
    CHECK(view.fields[k].size() == 5 * contents.field_row_bytes[k]);
    CHECK(Aligned(view.fields[k].data()));
    CHECK(view.fields[k].data() >= end);
    end = view.fields[k].data() + view.fields[k].size();
  }
  CHECK(view.output.data() >= end);
  CHECK(view.output.data() + view.output.size() <= slot.data() + slot.size());
  contents.field_row_bytes = {0};
  CHECK_THROWS_AS(SlotLayout(5, {3, 3, 3}, contents), Error);
}

TEST_CASE("a slot smaller than its layout or an empty shape is refused") {
  CHECK_THROWS_AS(SlotLayout(0, {2, 2, 3}, SlotContents{}), Error);
  CHECK_THROWS_AS(SlotLayout(2, {0, 2, 3}, SlotContents{}), Error);
  SlotLayout layout(2, {2, 2, 3}, SlotContents{});
  std::vector<uint8_t> small(layout.bytes() - 1);
  CHECK_THROWS_AS(layout.View(small), Error);
}

TEST_CASE("the static sizes are the layout's own, and a slot too large to count saturates") {
  SlotContents contents;
  contents.output_image_bytes = 100;
  contents.row_orders = 3;
  const SlotLayout layout(7, {3, 5, 3}, contents);
  CHECK(SlotLayout::Bytes(7, 45, contents) == layout.bytes());
  CHECK(SlotLayout::LabelsGroupBytes(7, 3) == layout.labels_group_bytes());
  const SlotLayout plain(7, {3, 5, 3}, SlotContents{});
  CHECK(SlotLayout::Bytes(7, 45, SlotContents{}) == plain.bytes());

  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  CHECK(SlotLayout::Bytes(kHuge, 1 << 20, SlotContents{}) == std::numeric_limits<size_t>::max());
  CHECK_THROWS_AS(SlotLayout(kHuge, {1024, 1024, 3}, SlotContents{}), Error);
}

}  // namespace
}  // namespace h5feed::memory
