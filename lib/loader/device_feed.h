#pragma once
// Feeds a run's loaded host batches through the GPU stage and hands out device batches in
// order: each loaded batch is copied to the device once and its echo copies are made there
// (device-side row permutations, cuda/device_stage.h), and one batch is kept ahead: when the
// trainer takes batch n, batch n + 1's copy and kernel are enqueued (if the host pipeline has
// it ready), so they run during step n even when the trainer synchronises every step.
//
// Thread-safety: the loader's thread only. One feed serves every run of a loader; Restart
// drops what a stopped run left.

#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "cuda/device_stage.h"
#include "memory/slot_layout.h"
#include "pipeline/batch_assembler.h"

namespace h5feed::loader {

struct DeviceDelivery {
  std::shared_ptr<cuda::DeviceBatch> device;
  std::vector<int64_t> labels;   // on the host too, in the delivered order
  std::vector<int64_t> indices;  // dataset rows, in the delivered order
  int64_t epoch = 0;
  int64_t step = 0;  // loaded step x echo + copy
};

using DeviceEvent = std::variant<DeviceDelivery, pipeline::EndOfEpoch, std::exception_ptr>;

class DeviceFeed {
 public:
  // `layout` must have row_orders >= echo (the assembler writes each copy's order there).
  DeviceFeed(cuda::DeviceStage& stage, const memory::SlotLayout& layout, int echo);
  ~DeviceFeed();
  DeviceFeed(const DeviceFeed&) = delete;
  DeviceFeed& operator=(const DeviceFeed&) = delete;

  // A new run starts; its first loaded batch is delivered from copy `first_copy` (a run
  // resumed mid-echo). Batches made ahead for the previous run are dropped.
  void Restart(int first_copy);

  // The next batch (the trainer's stream made to wait for it), then the run's end or error.
  // Throws Error(kInvalidArgument) when the trainer holds every device buffer, Error(kCuda)
  // when the stage fails.
  DeviceEvent Next(pipeline::BatchAssembler& assembler);
  // Whether Next has something made ahead (a batch or the run's end) and need not wait.
  bool ready() const { return !ahead_.empty() || terminal_.has_value(); }

 private:
  struct Loaded;

  // Enqueues the next device batch into `ahead_`. wait = false: only if that needs no waiting
  // (a free buffer and a host batch ready); returns false then if nothing was enqueued.
  // wait = true: returns false at the run's end or error (in terminal_).
  bool Produce(pipeline::BatchAssembler& assembler, bool wait);
  void DropLoaded();

  cuda::DeviceStage& stage_;
  const memory::SlotLayout& layout_;
  const int echo_;
  int first_copy_ = 0;
  std::unique_ptr<Loaded> loaded_;    // the loaded batch whose copies are being made
  std::deque<DeviceDelivery> ahead_;  // enqueued on the device, not yet handed out
  std::optional<DeviceEvent> terminal_;
};

}  // namespace h5feed::loader
