// The GPU stage's ring of device buffers, streams and events (device_stage.h; the timeline is
// in docs/gpu.md). Host code: the kernels live in normalize_kernel.cu, resize_kernel.cu and
// field_kernels.cu.
#include "cuda/device_stage.h"

#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/device_handles.h"
#include "cuda/field_kernels.h"
#include "cuda/normalize_kernel.h"
#include "cuda/pinned_allocator.h"
#include "cuda/resize_kernel.h"
#include "h5feed/image_shape.h"
#include "make_error.h"

namespace h5feed::cuda {
namespace {

// A device allocation only when there is something to hold.
std::unique_ptr<DeviceBuffer> BufferOf(size_t bytes) {
  return bytes == 0 ? nullptr : std::make_unique<DeviceBuffer>(bytes);
}

struct Input {
  Input(size_t image_bytes, size_t group_bytes, size_t field_bytes)
      : images(image_bytes), group(group_bytes), fields(BufferOf(field_bytes)) {}
  DeviceBuffer images;  // rows x H x W x C, padded by 16 bytes for the kernel's aligned loads
  DeviceBuffer group;   // labels, indices, orders as in the host slot
  std::unique_ptr<DeviceBuffer> fields;  // the slot's field regions as laid out there
  std::vector<size_t> field_offsets;     // each field's region within `fields`
  Event copied;                          // copy stream: its H2D copies done
  Event consumed;                        // compute stream: the last kernel reading it done
  bool used = false;
  size_t indices_offset = 0;
  size_t orders_offset = 0;
  int64_t rows = 0;
  int64_t epoch = 0;
};

struct Output {
  Output(size_t image_bytes, size_t label_bytes) : images(image_bytes), labels(label_bytes) {}
  DeviceBuffer images;
  DeviceBuffer labels;
  std::vector<std::unique_ptr<DeviceBuffer>> fields;  // per DeviceStageOptions::fields
  Event ready;                                        // compute stream: the kernel writing it done
  Event released;  // trainer's stream: past the release of the batch that used it last
  bool released_recorded = false;  // guarded by Ring::mutex
};

// Everything device-side; shared by the stage and every DeviceBatch it made, so a batch held
// past the loader keeps its buffers. Destroyed (streams drained first) with the last of them.
struct Ring {
  // Runs inside a DeviceScope of o.device (the streams, events and buffers are made there).
  explicit Ring(const DeviceStageOptions& o) : options(o) {
    trainer = o.trainer_stream.value();
    const auto rows = static_cast<size_t>(o.capacity);
    const size_t image_bytes = rows * static_cast<size_t>(o.shape.bytes()) + 16;
    // The host slot's labels, indices and `echo` orders group, copied as it is laid out.
    group_bytes = memory::SlotLayout::LabelsGroupBytes(o.capacity, o.echo);
    // The field regions as the slot lays them out: each on a 256-byte boundary, so their
    // aligned sizes bound the range from the first to the end of the last.
    for (const DeviceField& field : o.fields) {
      const size_t bytes = rows * field.row_bytes;
      field_bytes += (bytes + 255) / 256 * 256;
    }
    // A mask's delivered values per sample in each view at its largest size (the room the
    // view's images have, in pixels), one view's tensor after another.
    for (size_t v = 0; v < o.views.views.size(); ++v) {
      const transform::OutputSpec& spec = o.views.views[v];
      const int64_t pixel_bytes =
          spec.image_bytes() / (int64_t{spec.augment.out_height} * spec.augment.out_width);
      mask_view_pixels.push_back(mask_pixels);
      mask_pixels += o.views.room_bytes[v] / pixel_bytes;
    }
    for (int i = 0; i < o.inputs; ++i) {
      inputs.push_back(std::make_unique<Input>(image_bytes, group_bytes, field_bytes));
      free_inputs.push_back(i);
    }
    const size_t out_bytes = rows * static_cast<size_t>(o.views.room_per_sample());
    for (int i = 0; i < o.outputs; ++i) {
      outputs.push_back(std::make_unique<Output>(out_bytes, rows * sizeof(int64_t)));
      for (const DeviceField& field : o.fields) {
        const size_t bytes =
            field.mask_element_bytes == 0
                ? rows * field.row_bytes
                : rows * static_cast<size_t>(mask_pixels) * field.mask_element_bytes;
        outputs.back()->fields.push_back(BufferOf(bytes));
      }
      free_outputs.push_back(i);
    }
  }

  // Where view `view`'s masks of field `k` start in an output's buffer of that field.
  size_t MaskOffset(int k, int view) const {
    return static_cast<size_t>(options.capacity * mask_view_pixels[static_cast<size_t>(view)]) *
           options.fields[static_cast<size_t>(k)].mask_element_bytes;
  }
  ~Ring() {
    cudaStreamSynchronize(copy.stream);
    cudaStreamSynchronize(compute.stream);
  }

  const DeviceStageOptions options;
  size_t group_bytes = 0;
  size_t field_bytes = 0;                 // an input's field regions
  int64_t mask_pixels = 0;                // a delivered mask's values per sample, every view
  std::vector<int64_t> mask_view_pixels;  // per view: those of the views before it
  cudaStream_t trainer = nullptr;
  Stream copy;
  Stream compute;
  std::vector<std::unique_ptr<Input>> inputs;
  std::vector<int> free_inputs;  // loader thread only
  std::vector<std::unique_ptr<Output>> outputs;

  std::mutex mutex;               // batches are released on any thread
  std::vector<int> free_outputs;  // guarded by mutex
};

class Batch final : public DeviceBatch {
 public:
  Batch(std::shared_ptr<Ring> ring, int output) : ring_(std::move(ring)), output_(output) {}
  ~Batch() override {
    Output& out = *ring_->outputs[static_cast<size_t>(output_)];
    std::lock_guard lock(ring_->mutex);
    // An error here (the trainer destroyed its stream first) leaves `released` as it was:
    // the next kernel into this buffer then waits only on the release before, which the
    // device has passed anyway once the stream is gone.
    out.released_recorded |= cudaEventRecord(out.released.event, ring_->trainer) == cudaSuccess;
    ring_->free_outputs.push_back(output_);
  }
  const void* images() const override { return output().images.data; }
  const int64_t* labels() const override {
    return static_cast<const int64_t*>(output().labels.data);
  }
  const void* field(int k, int view) const override {
    const DeviceBuffer* buffer = output().fields.at(static_cast<size_t>(k)).get();
    if (buffer == nullptr) return nullptr;
    const bool mask = ring_->options.fields[static_cast<size_t>(k)].mask_element_bytes > 0;
    return static_cast<const uint8_t*>(buffer->data) + (mask ? ring_->MaskOffset(k, view) : 0);
  }
  void MakeReady() const override {
    Check(cudaStreamWaitEvent(ring_->trainer, output().ready.event, 0),
          "making the trainer's stream wait for a batch");
  }

 private:
  const Output& output() const { return *ring_->outputs[static_cast<size_t>(output_)]; }
  const std::shared_ptr<Ring> ring_;
  const int output_;
};

// Throws Error(kUnsupported) for a view the kernel cannot make.
void CheckLaunchable(const ImageShape& shape, const transform::OutputViews& views) {
  for (const transform::OutputSpec& spec : views.views) {
    if (spec.augment.resizes()) {
      PlanResize(shape.height, shape.width, shape.channels, spec);  // throws when it cannot
      continue;
    }
    if (NormalizeSharedBytes(shape.channels, spec) > (48 << 10)) {
      throw MakeError(
          ErrorCode::kUnsupported,
          "GPU stage: delivered rows of {} pixels are too wide for the kernel; crop them or use "
          "the CPU path",
          spec.augment.out_width);
    }
  }
}

std::shared_ptr<Ring> MakeRing(const DeviceStageOptions& options) {
  DeviceScope scope(options.device);
  return std::make_shared<Ring>(options);
}

void CUDART_CB ReturnSlot(cudaStream_t, cudaError_t, void* lease) {
  // On the CUDA runtime's callback thread, after the copies, or once the device has failed:
  // returns the host slot to its pool (a mutex and a notify; no CUDA call, as callbacks
  // require). A stream callback runs exactly once, also after a device error, where a host
  // function (cudaLaunchHostFunc) never runs: the slot would be lost, and the host pipeline
  // wait for it forever. The loader drains the copy stream before its pool can go, so this is
  // never the pool's last reference.
  delete static_cast<memory::SlotLease*>(lease);
}

class Stage final : public DeviceStage {
 public:
  explicit Stage(const DeviceStageOptions& options)
      : ring_(MakeRing(options)), allocator_(PinnedHostAllocator()) {}
  ~Stage() override { Synchronize(); }

  std::shared_ptr<memory::HostAllocator> host_allocator() const override { return allocator_; }
  int free_inputs() const override { return static_cast<int>(ring_->free_inputs.size()); }
  int free_outputs() const override {
    std::lock_guard lock(ring_->mutex);
    return static_cast<int>(ring_->free_outputs.size());
  }
  const std::vector<DeviceField>& fields() const override { return ring_->options.fields; }

  int Load(HostBatch batch) override {
    if (ring_->free_inputs.empty() || batch.group.size() > ring_->group_bytes ||
        batch.fields.size() > ring_->field_bytes ||
        batch.field_offsets.size() != ring_->options.fields.size()) {
      throw Error(ErrorCode::kInternal, "GPU stage: no free input, or a slot it cannot hold");
    }
    DeviceScope scope(ring_->options.device);
    const int index = ring_->free_inputs.back();
    Input& in = *ring_->inputs[static_cast<size_t>(index)];
    const cudaStream_t copy = ring_->copy.stream;
    if (in.used) Check(cudaStreamWaitEvent(copy, in.consumed.event, 0), "ordering a copy");
    Check(cudaMemcpyAsync(in.images.data, batch.images.data(), batch.images.size(),
                          cudaMemcpyHostToDevice, copy),
          "copying a batch's images to the device");
    Check(cudaMemcpyAsync(in.group.data, batch.group.data(), batch.group.size(),
                          cudaMemcpyHostToDevice, copy),
          "copying a batch's labels to the device");
    if (!batch.fields.empty()) {
      Check(cudaMemcpyAsync(in.fields->data, batch.fields.data(), batch.fields.size(),
                            cudaMemcpyHostToDevice, copy),
            "copying a batch's fields to the device");
    }
    Check(cudaEventRecord(in.copied.event, copy), "recording a copy's event");
    auto* lease = new memory::SlotLease(std::move(batch.lease));
    const cudaError_t queued = cudaStreamAddCallback(copy, ReturnSlot, lease, 0);
    if (queued != cudaSuccess) delete lease;  // not queued: return the slot now
    Check(queued, "queueing the host slot's return");
    ring_->free_inputs.pop_back();
    in.used = true;
    in.indices_offset = batch.indices_offset;
    in.orders_offset = batch.orders_offset;
    in.field_offsets = std::move(batch.field_offsets);
    in.rows = batch.rows;
    in.epoch = batch.epoch;
    return index;
  }

  std::shared_ptr<DeviceBatch> Emit(int input, int copy, bool last) override {
    Input& in = *ring_->inputs[static_cast<size_t>(input)];
    int index = -1;
    bool wait_release = false;
    {
      std::lock_guard lock(ring_->mutex);
      if (ring_->free_outputs.empty()) {
        throw Error(ErrorCode::kInternal, "GPU stage: no free output");
      }
      index = ring_->free_outputs.back();
      ring_->free_outputs.pop_back();
      wait_release = ring_->outputs[static_cast<size_t>(index)]->released_recorded;
    }
    DeviceScope scope(ring_->options.device);
    // From here the buffer is ours; a failure must give it back (the Batch does).
    auto batch = std::make_shared<Batch>(ring_, index);
    Output& out = *ring_->outputs[static_cast<size_t>(index)];
    const cudaStream_t compute = ring_->compute.stream;
    Check(cudaStreamWaitEvent(compute, in.copied.event, 0), "ordering the kernel after its copy");
    if (wait_release) {
      Check(cudaStreamWaitEvent(compute, out.released.event, 0),
            "ordering the kernel after the trainer released the buffer");
    }
    const auto* group = static_cast<const uint8_t*>(in.group.data);
    NormalizeLaunch launch;
    launch.images = static_cast<const uint8_t*>(in.images.data);
    launch.labels = reinterpret_cast<const int64_t*>(group);
    launch.indices = reinterpret_cast<const int64_t*>(group + in.indices_offset);
    launch.order = reinterpret_cast<const int64_t*>(group + in.orders_offset) +
                   static_cast<int64_t>(copy) * ring_->options.capacity;
    launch.labels_out = static_cast<int64_t*>(out.labels.data);
    launch.out = out.images.data;
    launch.rows = in.rows;
    launch.epoch = in.epoch;
    launch.copy = copy;
    launch.height = ring_->options.shape.height;
    launch.width = ring_->options.shape.width;
    launch.channels = ring_->options.shape.channels;
    for (int v = 0; v < views_.count(); ++v) {
      launch.spec = views_.views[static_cast<size_t>(v)];
      launch.out =
          static_cast<uint8_t*>(out.images.data) + views_.offset(v, ring_->options.capacity);
      if (v > 0) launch.labels = nullptr;  // written once, with the first view
      LaunchNormalize(launch, compute);
    }
    LaunchFields(in, out, launch.indices, launch.order, copy, compute);
    Check(cudaEventRecord(out.ready.event, compute), "recording a batch's ready event");
    if (last) {
      Check(cudaEventRecord(in.consumed.event, compute), "recording an input's release");
      ring_->free_inputs.push_back(input);
    }
    return batch;
  }

  // The copy's fields: each array permuted by the copy's order, each mask cropped per view.
  void LaunchFields(const Input& in, const Output& out, const int64_t* indices,
                    const int64_t* order, int copy, cudaStream_t compute) const {
    const std::vector<DeviceField>& fields = ring_->options.fields;
    for (size_t k = 0; k < fields.size(); ++k) {
      const uint8_t* region = static_cast<const uint8_t*>(in.fields->data) + in.field_offsets[k];
      auto* target = static_cast<uint8_t*>(out.fields[k]->data);
      if (fields[k].mask_element_bytes == 0) {
        LaunchGatherRows(
            {region, order, target, in.rows, static_cast<int64_t>(fields[k].row_bytes)}, compute);
        continue;
      }
      MaskLaunch mask;
      mask.masks = region;
      mask.indices = indices;
      mask.order = order;
      mask.rows = in.rows;
      mask.epoch = in.epoch;
      mask.copy = copy;
      mask.height = static_cast<int32_t>(ring_->options.shape.height);
      mask.width = static_cast<int32_t>(ring_->options.shape.width);
      mask.element_bytes = fields[k].mask_element_bytes;
      mask.fill = views_.mask_fill;
      for (int v = 0; v < views_.count(); ++v) {
        mask.augment = views_.views[static_cast<size_t>(v)].augment;
        mask.out = target + ring_->MaskOffset(static_cast<int>(k), v);
        LaunchCropMasks(mask, compute);
      }
    }
  }

  void SetViews(const transform::OutputViews& views) override {
    CheckLaunchable(ring_->options.shape, views);
    views_ = views;
  }

  void Abandon(int input) override {
    DeviceScope scope(ring_->options.device);
    Input& in = *ring_->inputs[static_cast<size_t>(input)];
    // The copy stream must not overwrite it before its copy and any kernel reading it are done.
    Check(cudaStreamWaitEvent(ring_->compute.stream, in.copied.event, 0), "ordering a release");
    Check(cudaEventRecord(in.consumed.event, ring_->compute.stream), "recording a release");
    ring_->free_inputs.push_back(input);
  }

  void Synchronize() override {
    cudaStreamSynchronize(ring_->copy.stream);
    cudaStreamSynchronize(ring_->compute.stream);
  }

 private:
  const std::shared_ptr<Ring> ring_;
  const std::shared_ptr<memory::HostAllocator> allocator_;
  transform::OutputViews views_ = ring_->options.views;  // loader thread only
};

}  // namespace

std::unique_ptr<DeviceStage> OpenDeviceStage(const DeviceStageOptions& options) {
  if (options.inputs < 2 || options.outputs < 2 || options.capacity < 1 || options.echo < 1) {
    throw Error(ErrorCode::kInternal, "GPU stage: needs >= 2 inputs and outputs");
  }
  CheckLaunchable(options.shape, options.views);
  return std::make_unique<Stage>(options);
}

}  // namespace h5feed::cuda
