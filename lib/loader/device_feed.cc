#include "loader/device_feed.h"

#include <chrono>
#include <string>
#include <utility>

#include "h5feed/error.h"
#include "pipeline/echo.h"

namespace h5feed::loader {

struct DeviceFeed::Loaded {
  int input = -1;
  int next_copy = 0;
  int64_t loaded_step = 0;
  int64_t epoch = 0;
  int64_t rows = 0;
  std::vector<int64_t> labels;
  std::vector<int64_t> indices;
  std::vector<int64_t> orders;  // echo x rows
};

DeviceFeed::DeviceFeed(cuda::DeviceStage& stage, const memory::SlotLayout& layout, int echo)
    : stage_(stage), layout_(layout), echo_(echo) {}

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
  terminal_.reset();
  first_copy_ = first_copy;
}

bool DeviceFeed::Produce(pipeline::BatchAssembler& assembler, bool wait) {
  if (!loaded_ && terminal_) return false;
  if (stage_.free_outputs() == 0) {
    if (!wait) return false;
    throw Error(ErrorCode::kInvalidArgument,
                "GPU stage: the trainer holds every device batch buffer; release a batch before "
                "asking for the next one, or open the loader with more slots (each slot is "
                "one device buffer)");
  }
  while (!loaded_) {
    if (terminal_) return false;
    if (!wait && !assembler.WaitReady(std::chrono::milliseconds(0))) return false;
    pipeline::PipelineEvent event = assembler.Next();
    if (auto* batch = std::get_if<pipeline::AssembledBatch>(&event)) {
      if (batch->rows == 0) continue;  // every row lay in skipped corrupt chunks
      auto loaded = std::make_unique<Loaded>();
      const auto rows = static_cast<size_t>(batch->rows);
      const memory::SlotView& view = batch->view;
      loaded->labels.assign(view.labels.begin(), view.labels.begin() + batch->rows);
      loaded->indices.assign(view.indices.begin(), view.indices.begin() + batch->rows);
      for (int copy = 0; copy < echo_; ++copy) {
        const auto order =
            view.orders.subspan(static_cast<size_t>(copy * layout_.capacity()), rows);
        loaded->orders.insert(loaded->orders.end(), order.begin(), order.end());
      }
      loaded->loaded_step = batch->loaded_step;
      loaded->epoch = batch->epoch;
      loaded->rows = batch->rows;
      loaded->next_copy = first_copy_;
      first_copy_ = 0;
      loaded->input = stage_.Load(
          cuda::MakeHostBatch(std::move(batch->lease), layout_, batch->rows, batch->epoch));
      loaded_ = std::move(loaded);
    } else {
      terminal_ = std::holds_alternative<pipeline::EndOfEpoch>(event)
                      ? DeviceEvent(pipeline::EndOfEpoch{})
                      : DeviceEvent(std::get<std::exception_ptr>(event));
      return false;
    }
  }
  Loaded& loaded = *loaded_;
  const int copy = loaded.next_copy++;
  const bool last = loaded.next_copy == echo_;
  DeviceDelivery delivery;
  delivery.device = stage_.Emit(loaded.input, copy, last);
  delivery.epoch = loaded.epoch;
  delivery.step = pipeline::EchoStep{loaded.loaded_step, copy}.delivered(echo_);
  const auto rows = static_cast<size_t>(loaded.rows);
  delivery.labels.resize(rows);
  delivery.indices.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    const auto source = static_cast<size_t>(loaded.orders[static_cast<size_t>(copy) * rows + i]);
    delivery.labels[i] = loaded.labels[source];
    delivery.indices[i] = loaded.indices[source];
  }
  ahead_.push_back(std::move(delivery));
  if (last) loaded_.reset();  // Emit freed its input
  return true;
}

DeviceEvent DeviceFeed::Next(pipeline::BatchAssembler& assembler) {
  if (ahead_.empty() && !Produce(assembler, true)) return *terminal_;
  DeviceDelivery delivery = std::move(ahead_.front());
  ahead_.pop_front();
  Produce(assembler, false);  // the next batch's copy and kernel run during this step
  delivery.device->MakeReady();
  return delivery;
}

}  // namespace h5feed::loader
