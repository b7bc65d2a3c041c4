#include "memory/slot_layout.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::memory {
namespace {

// Sizes saturate at kTooLarge, which no slot reaches: an overflow then reads as too large for
// the machine rather than wrapping to a small slot.
constexpr size_t kTooLarge = std::numeric_limits<size_t>::max();

size_t Add(size_t a, size_t b) {
  size_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kTooLarge : sum;
}

size_t Multiply(size_t a, size_t b) {
  size_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kTooLarge : product;
}

size_t AlignUp(size_t value) {
  constexpr size_t kAlignment = SlotLayout::kRegionAlignment;
  if (value > kTooLarge - (kAlignment - 1)) return kTooLarge;
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

// Where each region of a slot starts, and where the slot ends: the one rule of the layout.
struct Regions {
  size_t labels = 0;
  size_t indices = 0;
  size_t orders = 0;
  size_t labels_group_end = 0;
  size_t output = 0;
  size_t end = 0;
};

// The array fields' regions from `start`, each on its boundary after the one before; returns
// where the last ends, and writes where each starts to `offsets` when given.
size_t PlaceFields(size_t start, size_t rows, const std::vector<size_t>& row_bytes,
                   std::vector<size_t>* offsets) {
  size_t end = start;
  for (const size_t bytes : row_bytes) {
    const size_t offset = AlignUp(end);
    if (offsets != nullptr) offsets->push_back(offset);
    end = Add(offset, Multiply(rows, bytes));
  }
  return end;
}

Regions Place(int64_t capacity, size_t image_bytes, const SlotContents& contents) {
  const auto rows = static_cast<size_t>(capacity);
  const size_t ids = Multiply(rows, sizeof(int64_t));
  Regions r;
  r.labels = AlignUp(Multiply(rows, image_bytes));
  r.indices = AlignUp(Add(r.labels, ids));
  r.orders = AlignUp(Add(r.indices, ids));
  r.labels_group_end = Add(r.orders, Multiply(ids, static_cast<size_t>(contents.row_orders)));
  r.output = AlignUp(PlaceFields(r.labels_group_end, rows, contents.field_row_bytes, nullptr));
  r.end = Add(r.output, Multiply(rows, contents.output_image_bytes));
  return r;
}

}  // namespace

SlotLayout::SlotLayout(int64_t capacity, const ImageShape& shape, const SlotContents& contents)
    : capacity_(capacity), shape_(shape), contents_(contents) {
  const bool empty_field_row =
      std::find(contents.field_row_bytes.begin(), contents.field_row_bytes.end(), size_t{0}) !=
      contents.field_row_bytes.end();
  if (capacity < 1 || shape.height < 1 || shape.width < 1 || shape.channels < 1 ||
      contents.row_orders < 0 || empty_field_row) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "slot layout: batch capacity {} of {}x{}x{} images", capacity, shape.height,
                    shape.width, shape.channels);
  }
  const Regions regions = Place(capacity, static_cast<size_t>(shape.bytes()), contents);
  if (regions.end == kTooLarge) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "slot layout: a batch of {} images of {}x{}x{} is too large to address",
                    capacity, shape.height, shape.width, shape.channels);
  }
  labels_offset_ = regions.labels;
  indices_offset_ = regions.indices;
  orders_offset_ = regions.orders;
  PlaceFields(regions.labels_group_end, static_cast<size_t>(capacity), contents.field_row_bytes,
              &field_offsets_);
  output_offset_ = regions.output;
  bytes_ = regions.end;
}

size_t SlotLayout::Bytes(int64_t capacity, size_t image_bytes,
                         const SlotContents& contents) noexcept {
  return Place(capacity, image_bytes, contents).end;
}

size_t SlotLayout::LabelsGroupBytes(int64_t capacity, int64_t row_orders) noexcept {
  SlotContents contents;
  contents.row_orders = row_orders;
  const Regions regions = Place(capacity, 0, contents);
  return regions.labels_group_end - regions.labels;
}

SlotView SlotLayout::View(std::span<uint8_t> slot) const {
  if (slot.size() < bytes_) {
    throw MakeError(ErrorCode::kInternal, "slot layout: slot of {} bytes, layout needs {}",
                    slot.size(), bytes_);
  }
  const size_t rows = static_cast<size_t>(capacity_);
  uint8_t* base = slot.data();
  SlotView view;
  view.images = {base, rows * static_cast<size_t>(shape_.bytes())};
  view.labels = {reinterpret_cast<int64_t*>(base + labels_offset_), rows};
  view.indices = {reinterpret_cast<int64_t*>(base + indices_offset_), rows};
  if (contents_.row_orders > 0) {
    view.orders = {reinterpret_cast<int64_t*>(base + orders_offset_),
                   rows * static_cast<size_t>(contents_.row_orders)};
  }
  for (size_t k = 0; k < field_offsets_.size(); ++k) {
    view.fields.emplace_back(base + field_offsets_[k], rows * contents_.field_row_bytes[k]);
  }
  if (normalized()) {
    view.output = {base + output_offset_, rows * contents_.output_image_bytes};
  }
  return view;
}

}  // namespace h5feed::memory
