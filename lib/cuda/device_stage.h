#pragma once
// The GPU stage, behind an interface with no CUDA type in it, so the loader compiles without
// nvcc (a build without it links no_cuda.cc, whose OpenDeviceStage refuses).
//
// What it does with a loaded host batch (docs/gpu.md has the timeline):
//   Load: on its own copy stream, waits until the device input buffer it takes was last read
//         (event `consumed`), copies the images and the labels/indices/orders group H2D with
//         cudaMemcpyAsync, records `copied`, and returns the host slot to its pool from a
//         stream callback after the copies (cudaStreamAddCallback, which also runs once the
//         device has failed): a host slot is reused only once its copy is done.
//   Emit: on its compute stream, waits on `copied` and on the output buffer's `released` (the
//         trainer's stream passed the release of the batch that last used it), runs the
//         normalize kernel for one echo copy (rows permuted on the device by that copy's order)
//         and records `ready`; after the input's last copy, records `consumed`. The batch's
//         fields ride along (docs/gpu.md, "Fields on the device"): their slot regions are copied
//         after the group, and each copy gets its array fields permuted by its order
//         (GatherRows) and its masks cropped with each view's geometry (CropMasks), on the
//         compute stream before `ready`.
//   DeviceBatch::MakeReady: the trainer's stream waits on `ready` (cudaStreamWaitEvent); the
//         host never waits. Destroying the DeviceBatch records `released` on the trainer's stream
//         and returns the output buffer to the ring.
//
// Thread-safety: Load, Emit, free_inputs, free_outputs and Synchronize are called from one
// thread (the loader's user). DeviceBatch objects may be destroyed on any thread, also after
// the stage (they keep the device memory alive).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/cuda_stream_view.h"
#include "h5feed/image_shape.h"
#include "memory/host_allocator.h"
#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "transform/output_views.h"

namespace h5feed::cuda {

// A field the stage carries: one region of the host slot (memory::SlotView::fields).
struct DeviceField {
  size_t row_bytes = 0;        // one row's bytes in the slot
  int mask_element_bytes = 0;  // 0: an array field; a mask: 1 (uint8) or 2 (uint16), H x W of
                               // the stored images (DeviceStageOptions::shape)
};

struct DeviceStageOptions {
  int device = 0;
  CudaStreamView trainer_stream;    // default: the legacy default stream
  int64_t capacity = 0;             // rows of a batch
  ImageShape shape;                 // stored images
  transform::OutputViews views;     // what the kernel delivers (at Open: the room per view)
  int echo = 1;                     // row orders per loaded batch (copies made from one load)
  int inputs = 2;                   // device uint8 input buffers (>= 2: one filling, one read)
  int outputs = 2;                  // device output buffers (>= 2: one trained on, one filling)
  std::vector<DeviceField> fields;  // the slot's field regions, in its order
};

// One loaded host batch, as the slot layout lays it out (memory/slot_layout.h).
struct HostBatch {
  memory::SlotLease lease;            // handed to the stage: returned after its copy completes
  std::span<const uint8_t> images;    // rows x H x W x C
  std::span<const uint8_t> group;     // labels, indices and orders regions, contiguous
  size_t indices_offset = 0;          // within group
  size_t orders_offset = 0;           // within group
  std::span<const uint8_t> fields;    // the slot's field regions, first to last (empty: none)
  std::vector<size_t> field_offsets;  // each field's region within `fields`
  int64_t rows = 0;
  int64_t epoch = 0;
};

// The HostBatch of `rows` rows (epoch `epoch`) that `lease` holds, laid out by `layout`.
inline HostBatch MakeHostBatch(memory::SlotLease lease, const memory::SlotLayout& layout,
                               int64_t rows, int64_t epoch) {
  const memory::SlotView view = layout.View(lease.bytes());
  const auto* group = reinterpret_cast<const uint8_t*>(view.labels.data());
  const auto offset = [&](const int64_t* region) {
    return static_cast<size_t>(reinterpret_cast<const uint8_t*>(region) - group);
  };
  HostBatch batch;
  batch.images = view.images.first(static_cast<size_t>(rows * layout.shape().bytes()));
  batch.group = {group, layout.labels_group_bytes()};
  batch.indices_offset = offset(view.indices.data());
  batch.orders_offset = offset(view.orders.data());
  if (!view.fields.empty()) {
    const uint8_t* first = view.fields.front().data();
    batch.fields = {
        first, static_cast<size_t>(view.fields.back().data() + view.fields.back().size() - first)};
    for (const std::span<uint8_t>& field : view.fields) {
      batch.field_offsets.push_back(static_cast<size_t>(field.data() - first));
    }
  }
  batch.rows = rows;
  batch.epoch = epoch;
  batch.lease = std::move(lease);
  return batch;
}

// One normalized batch on the device: `rows` samples of every view as the views say (view v at
// images() + views.offset(v, capacity)), their labels (int64), and their fields.
class DeviceBatch {
 public:
  virtual ~DeviceBatch() = default;  // records `released` on the trainer's stream
  virtual const void* images() const = 0;
  virtual const int64_t* labels() const = 0;
  // Field k (DeviceStageOptions::fields) of the delivered rows: an array field's rows x
  // row_bytes; a mask's rows x Ho x Wo values of view `view` (at the view's current size).
  virtual const void* field(int k, int view) const = 0;
  // Makes the trainer's stream wait for this batch (cudaStreamWaitEvent on `ready`).
  virtual void MakeReady() const = 0;
};

class DeviceStage {
 public:
  virtual ~DeviceStage() = default;  // waits for the stage's own streams (not the trainer's)

  // Pinned host memory (cudaHostAlloc) for the slot pool: the DMA engine reads it directly.
  virtual std::shared_ptr<memory::HostAllocator> host_allocator() const = 0;
  virtual int free_inputs() const = 0;
  virtual int free_outputs() const = 0;
  // The fields it carries (DeviceStageOptions::fields).
  virtual const std::vector<DeviceField>& fields() const = 0;

  // Starts the copy of `batch` into a free input buffer (free_inputs() > 0); returns its index.
  virtual int Load(HostBatch batch) = 0;
  // Enqueues echo copy `copy` (0 <= copy < echo) of loaded input `input` into a free output
  // buffer (free_outputs() > 0). `last`: no more copies of this input (it becomes free).
  virtual std::shared_ptr<DeviceBatch> Emit(int input, int copy, bool last) = 0;
  // The views later Emits deliver (a new output size, within the room of Open's views).
  // Throws Error(kUnsupported) when the kernel cannot make them.
  virtual void SetViews(const transform::OutputViews& views) = 0;
  // Gives back a loaded input whose remaining copies will not be made (a run stopped midway):
  // free again once the kernels already enqueued on it are done.
  virtual void Abandon(int input) = 0;
  // Waits for the stage's copy and compute streams (at teardown: host slot callbacks done).
  virtual void Synchronize() = 0;
};

// Throws Error(kCuda) naming the device when it cannot be set up, Error(kUnsupported) in a
// build without CUDA or for views the kernel cannot make.
std::unique_ptr<DeviceStage> OpenDeviceStage(const DeviceStageOptions& options);

}  // namespace h5feed::cuda
