#pragma once
// Feeds a run's loaded host batches through the GPU stage and hands out device batches in
// order: each loaded batch is copied to the device once and its echo copies are made there
// (device-side row permutations, cuda/device_stage.h), and one batch is kept ahead: when the
// trainer takes batch n, batch n + 1's copy and kernel are enqueued (if the host pipeline has
// it ready), so they run during step n even when the trainer synchronises every step.
//
// Labels and dataset rows: the kernel permutes the labels on the device with the images; the
// host arrays every Batch also has (labels(), indices()) are permuted on the host by the same
// orders (the slot's, which the kernel reads after their copy), once per loaded batch for all
// its copies, before the slot goes back to its pool (docs/gpu.md, "Labels and rows"). The
// array fields a batch delivers are on the device (the stage permutes them with the images)
// and also on the host, permuted in the same way, as the labels are; masks are on the device
// only (the stage crops them there). Boxes and box labels are on the host only: the assembler
// made every copy's in the loaded batch's row order (loader::GeometricFieldsMaker, its extras),
// and they are put in each copy's order here with the labels (InOrder, geometric_fields.h).
//
// The run's end (EndOfEpoch or its error) is the assembler's (pipeline/run_end.h): the feed
// keeps no copy, and asks the assembler again, which answers with the same end every time.
//
// Thread-safety: the loader's thread only. One feed serves every run of a loader; Restart
// drops what a stopped run left.

#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <span>
#include <variant>
#include <vector>

#include "cuda/device_stage.h"
#include "loader/geometric_fields.h"
#include "memory/slot_layout.h"
#include "pipeline/batch_assembler.h"

namespace h5feed::loader {

struct DeviceDelivery {
  std::shared_ptr<cuda::DeviceBatch> device;
  // On the host, in the delivered order: labels and dataset rows, inside `host_rows` (which
  // the copies of one loaded batch share).
  std::span<int64_t> labels;
  std::span<int64_t> indices;
  std::shared_ptr<std::vector<int64_t>> host_rows;
  // On the host, in the delivered order: each array field's rows (memory::SlotView::fields'
  // order, masks left out), inside `host_fields` (shared as host_rows is; null without array
  // fields).
  std::vector<std::span<uint8_t>> fields;
  std::shared_ptr<std::vector<uint8_t>> host_fields;
  // Asked boxes (or masks): the copy's boxes and box labels (geometric_fields.h), in the
  // delivered order; empty when none is asked.
  GeometricFields geometric;
  int64_t epoch = 0;
  int copy = 0;      // the echo copy: the draws' key
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

  // The next batch (the trainer's stream made to wait for it), then the run's end or error,
  // and that end again at every later call (the assembler's). Throws Error(kInvalidArgument)
  // when the trainer holds every device buffer (before the run's end, which needs none),
  // Error(kCuda) when the stage fails.
  DeviceEvent Next(pipeline::BatchAssembler& assembler);
  // Whether Next need not wait for the assembler: a batch made ahead, or copies of the loaded
  // batch still to make (which need only a free device buffer; without one Next fails at
  // once). The run's end: ask the assembler.
  bool ready() const { return !ahead_.empty() || loaded_ != nullptr; }

 private:
  struct Loaded;

  // Enqueues the next device batch into `ahead_`. wait = false: only if that needs no waiting
  // (a free buffer and a host batch ready); returns false then if nothing was enqueued.
  // wait = true: returns false at the run's end (the assembler's next event then).
  bool Produce(pipeline::BatchAssembler& assembler, bool wait);
  // Starts the device copy of `batch` and makes its copies' host labels, rows and boxes.
  void Load(pipeline::AssembledBatch batch);
  void DropLoaded();

  cuda::DeviceStage& stage_;
  const memory::SlotLayout& layout_;
  const int echo_;
  const int host_fields_;  // the slot's fields delivered on the host too (its array fields)
  int first_copy_ = 0;
  std::unique_ptr<Loaded> loaded_;    // the loaded batch whose copies are being made
  std::deque<DeviceDelivery> ahead_;  // enqueued on the device, not yet handed out
};

}  // namespace h5feed::loader
