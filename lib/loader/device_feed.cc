#include "loader/device_feed.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "pipeline/echo.h"

namespace h5feed::loader {

struct DeviceFeed::Loaded {
  int input = -1;
  int next_copy = 0;
  int64_t loaded_step = 0;
  int64_t epoch = 0;
  int64_t rows = 0;
  // Copy e's labels at [2e x rows, (2e + 1) x rows), its dataset rows right after.
  std::shared_ptr<std::vector<int64_t>> host_rows;
  // Copy e's array fields from e x rows x (the sum of their row bytes), one after another.
  std::shared_ptr<std::vector<uint8_t>> host_fields;
  // Copy e's boxes at [e], in its delivered order (empty without geometric fields, and for the
  // copies a resumed run skips).
  std::vector<GeometricFields> geometric;
};

namespace {

// The labels and dataset rows of every echo copy of `loaded`, each in its delivered order:
// row i of copy e is loaded row orders[e][i], the order the kernel permutes the images and
// the device labels by (it reads these same orders after their copy to the device).
std::shared_ptr<std::vector<int64_t>> PermutedHostRows(const memory::SlotView& loaded,
                                                       int64_t capacity, int64_t rows, int echo) {
  const auto n = static_cast<size_t>(rows);
  auto host_rows = std::make_shared<std::vector<int64_t>>(2 * n * static_cast<size_t>(echo));
  for (int copy = 0; copy < echo; ++copy) {
    const auto order = loaded.orders.subspan(static_cast<size_t>(copy * capacity), n);
    int64_t* labels = host_rows->data() + 2 * n * static_cast<size_t>(copy);
    int64_t* indices = labels + n;
    for (size_t i = 0; i < n; ++i) {
      const auto source = static_cast<size_t>(order[i]);
      labels[i] = loaded.labels[source];
      indices[i] = loaded.indices[source];
    }
  }
  return host_rows;
}

// The slot's fields delivered on the host too: the array fields, which come first (the masks
// after them the device alone delivers).
int HostFields(const memory::SlotLayout& layout, const cuda::DeviceStage& stage) {
  int masks = 0;
  for (const cuda::DeviceField& field : stage.fields()) masks += field.mask_element_bytes > 0;
  return layout.fields() - masks;
}

size_t FieldBytesPerRow(const memory::SlotLayout& layout, int fields) {
  size_t bytes = 0;
  for (int k = 0; k < fields; ++k) bytes += layout.field_row_bytes(k);
  return bytes;
}

// The first `fields` fields of every echo copy of `loaded` (the array fields), each permuted by
// its copy's order as PermutedHostRows permutes the labels; null when there are none.
std::shared_ptr<std::vector<uint8_t>> PermutedHostFields(const memory::SlotView& loaded,
                                                         const memory::SlotLayout& layout,
                                                         int fields, int64_t rows, int echo) {
  if (fields == 0) return nullptr;
  const auto n = static_cast<size_t>(rows);
  const size_t copy_bytes = n * FieldBytesPerRow(layout, fields);
  auto host_fields = std::make_shared<std::vector<uint8_t>>(copy_bytes * static_cast<size_t>(echo));
  for (int copy = 0; copy < echo; ++copy) {
    const auto order = loaded.orders.subspan(static_cast<size_t>(copy * layout.capacity()), n);
    uint8_t* out = host_fields->data() + copy_bytes * static_cast<size_t>(copy);
    for (int k = 0; k < fields; ++k) {
      const size_t bytes = layout.field_row_bytes(k);
      const uint8_t* field = loaded.fields[static_cast<size_t>(k)].data();
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(out + i * bytes, field + static_cast<size_t>(order[i]) * bytes, bytes);
      }
      out += n * bytes;
    }
  }
  return host_fields;
}

// Copy `copy`'s array fields in `host_fields` (PermutedHostFields), one span per field.
std::vector<std::span<uint8_t>> CopyFields(std::vector<uint8_t>* host_fields,
                                           const memory::SlotLayout& layout, int count,
                                           int64_t rows, int copy) {
  std::vector<std::span<uint8_t>> fields;
  if (host_fields == nullptr) return fields;
  const auto n = static_cast<size_t>(rows);
  uint8_t* at =
      host_fields->data() + n * FieldBytesPerRow(layout, count) * static_cast<size_t>(copy);
  for (int k = 0; k < count; ++k) {
    const size_t bytes = n * layout.field_row_bytes(k);
    fields.emplace_back(at, bytes);
    at += bytes;
  }
  return fields;
}

// The boxes of every echo copy of `loaded` from `first_copy` on, each in its delivered order
// (as PermutedHostRows orders the labels), from what the assembler made of the loaded batch
// (EchoGeometricFields, null without geometric fields): copy 0 is the loaded order itself.
std::vector<GeometricFields> OrderedGeometricFields(const std::shared_ptr<const void>& extras,
                                                    const memory::SlotView& loaded,
                                                    int64_t capacity, int64_t rows,
                                                    int first_copy) {
  if (!extras) return {};
  const auto& made = *std::static_pointer_cast<const EchoGeometricFields>(extras);
  std::vector<GeometricFields> ordered(made.copies.size());
  for (size_t copy = static_cast<size_t>(first_copy); copy < made.copies.size(); ++copy) {
    ordered[copy] = copy == 0 ? made.copies[0]
                              : InOrder(*made.fields, made.copies[copy],
                                        loaded.orders.subspan(copy * static_cast<size_t>(capacity),
                                                              static_cast<size_t>(rows)));
  }
  return ordered;
}

}  // namespace

DeviceFeed::DeviceFeed(cuda::DeviceStage& stage, const memory::SlotLayout& layout, int echo)
    : stage_(stage), layout_(layout), echo_(echo), host_fields_(HostFields(layout, stage)) {}

DeviceFeed::~DeviceFeed() { DropLoaded(); }

void DeviceFeed::DropLoaded() {
  if (loaded_) {
    try {
      stage_.Abandon(loaded_->input);
    } catch (...) {
      // The device failed; the input is lost with it, and the next Load reports the error.
    }
  }
  loaded_.reset();
}

void DeviceFeed::Restart(int first_copy) {
  DropLoaded();
  ahead_.clear();
  first_copy_ = first_copy;
}

void DeviceFeed::Load(pipeline::AssembledBatch batch) {
  auto loaded = std::make_unique<Loaded>();
  loaded->host_rows = PermutedHostRows(batch.view, layout_.capacity(), batch.rows, echo_);
  loaded->host_fields = PermutedHostFields(batch.view, layout_, host_fields_, batch.rows, echo_);
  loaded->geometric =
      OrderedGeometricFields(batch.extras, batch.view, layout_.capacity(), batch.rows, first_copy_);
  loaded->loaded_step = batch.loaded_step;
  loaded->epoch = batch.epoch;
  loaded->rows = batch.rows;
  loaded->next_copy = first_copy_;
  first_copy_ = 0;
  loaded->input =
      stage_.Load(cuda::MakeHostBatch(std::move(batch.lease), layout_, batch.rows, batch.epoch));
  loaded_ = std::move(loaded);
}

bool DeviceFeed::Produce(pipeline::BatchAssembler& assembler, bool wait) {
  if (!loaded_ && assembler.ended()) return false;  // the end needs no device buffer
  if (stage_.free_outputs() == 0) {
    if (!wait) return false;
    throw Error(ErrorCode::kInvalidArgument,
                "GPU stage: the trainer holds every device batch buffer; release a batch before "
                "asking for the next one, or open the loader with more slots (each slot is "
                "one device buffer)");
  }
  while (!loaded_) {
    if (!wait && !assembler.WaitReady(std::chrono::milliseconds(0))) return false;
    pipeline::PipelineEvent event = assembler.Next();
    auto* batch = std::get_if<pipeline::AssembledBatch>(&event);
    if (!batch) return false;        // the run's end, which the assembler hands out again
    if (batch->rows == 0) continue;  // every row lay in skipped corrupt chunks
    Load(std::move(*batch));
  }
  Loaded& loaded = *loaded_;
  const int copy = loaded.next_copy++;
  const bool last = loaded.next_copy == echo_;
  const auto rows = static_cast<size_t>(loaded.rows);
  DeviceDelivery delivery;
  delivery.device = stage_.Emit(loaded.input, copy, last);
  delivery.epoch = loaded.epoch;
  delivery.copy = copy;
  delivery.step = pipeline::EchoStep{loaded.loaded_step, copy}.delivered(echo_);
  delivery.host_rows = loaded.host_rows;
  const std::span<int64_t> copy_rows =
      std::span(*loaded.host_rows).subspan(2 * rows * static_cast<size_t>(copy), 2 * rows);
  delivery.labels = copy_rows.first(rows);
  delivery.indices = copy_rows.last(rows);
  delivery.host_fields = loaded.host_fields;
  delivery.fields = CopyFields(loaded.host_fields.get(), layout_, host_fields_, loaded.rows, copy);
  if (!loaded.geometric.empty()) {
    delivery.geometric = std::move(loaded.geometric[static_cast<size_t>(copy)]);
  }
  ahead_.push_back(std::move(delivery));
  if (last) loaded_.reset();  // Emit freed its input
  return true;
}

DeviceEvent DeviceFeed::Next(pipeline::BatchAssembler& assembler) {
  if (ahead_.empty() && !Produce(assembler, true)) {
    // The run's end: the assembler's, handed out again at once.
    pipeline::PipelineEvent end = assembler.Next();
    if (auto* error = std::get_if<std::exception_ptr>(&end)) return *error;
    return pipeline::EndOfEpoch{};
  }
  DeviceDelivery delivery = std::move(ahead_.front());
  ahead_.pop_front();
  Produce(assembler, false);  // the next batch's copy and kernel run during this step
  delivery.device->MakeReady();
  return delivery;
}

}  // namespace h5feed::loader
