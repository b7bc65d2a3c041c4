// The GPU stage's ring of device buffers, streams and events (device_stage.h; the timeline is
// in docs/gpu.md). Host code: the kernel lives in normalize_kernel.cu.
#include "cuda/device_stage.h"

#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/normalize_kernel.h"
#include "cuda/pinned_allocator.h"
#include "cuda/resize_kernel.h"
#include "h5feed/image_shape.h"
#include "make_error.h"

namespace h5feed::cuda {
namespace {

// Makes `device` current for the scope and restores the caller's device after: the trainer's
// thread may be working on another device between two Next calls.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    Check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) {
      Check(cudaSetDevice(device), ("selecting CUDA device " + std::to_string(device)).c_str());
    }
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Owning device allocation.
struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(size_t bytes) { Check(cudaMalloc(&data, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Owning event; timing disabled (cheaper record and wait).
struct Event {
  cudaEvent_t event = nullptr;
  Event() { Check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// Owning stream, non-blocking: no implicit ordering with the legacy default stream, which the
// trainer may use; every ordering here is an explicit event.
struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

struct Input {
  Input(size_t image_bytes, size_t group_bytes) : images(image_bytes), group(group_bytes) {}
  DeviceBuffer images;  // rows x H x W x C, padded by 16 bytes for the kernel's aligned loads
  DeviceBuffer group;   // labels, indices, orders as in the host slot
  Event copied;         // copy stream: both H2D copies done
  Event consumed;       // compute stream: the last kernel reading it done
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
  Event ready;     // compute stream: the kernel writing it done
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
    for (int i = 0; i < o.inputs; ++i) {
      inputs.push_back(std::make_unique<Input>(image_bytes, group_bytes));
      free_inputs.push_back(i);
    }
    const size_t out_bytes = rows * static_cast<size_t>(o.views.room_per_sample());
    for (int i = 0; i < o.outputs; ++i) {
      outputs.push_back(std::make_unique<Output>(out_bytes, rows * sizeof(int64_t)));
      free_outputs.push_back(i);
    }
  }
  ~Ring() {
    cudaStreamSynchronize(copy.stream);
    cudaStreamSynchronize(compute.stream);
  }

  const DeviceStageOptions options;
  size_t group_bytes = 0;
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

  int Load(HostBatch batch) override {
    if (ring_->free_inputs.empty() || batch.group.size() > ring_->group_bytes) {
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
    Check(cudaEventRecord(in.copied.event, copy), "recording a copy's event");
    auto* lease = new memory::SlotLease(std::move(batch.lease));
    const cudaError_t queued = cudaStreamAddCallback(copy, ReturnSlot, lease, 0);
    if (queued != cudaSuccess) delete lease;  // not queued: return the slot now
    Check(queued, "queueing the host slot's return");
    ring_->free_inputs.pop_back();
    in.used = true;
    in.indices_offset = batch.indices_offset;
    in.orders_offset = batch.orders_offset;
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
    Check(cudaEventRecord(out.ready.event, compute), "recording a batch's ready event");
    if (last) {
      Check(cudaEventRecord(in.consumed.event, compute), "recording an input's release");
      ring_->free_inputs.push_back(input);
    }
    return batch;
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
