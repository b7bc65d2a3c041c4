// gpu_bench [--workdir DIR] [--batch N] [--size S]: the GPU stage on this machine's GPU, each
// figure beside the ceiling it is measured against in the same run, as markdown for
// bench/results/gpu.md (scripts/gpu_check.sh runs it on a GPU machine):
//   1. H2D copies of pinned batches (what the stage's copy stream does: images + labels group
//      per batch, into alternating device buffers) against one cudaMemcpy of one large pinned
//      buffer (the PCIe ceiling);
//   2. the normalize kernel against a device-to-device cudaMemcpy moving the same bytes
//      (uint8 read + output written: the memory ceiling), per type, layout and augmentation;
//   3. the fused resize kernel (issue 19: RandomResizedCrop + flip + normalize, and the
//      validation resize, from 256x256 stored to 224x224) against a device-to-device
//      cudaMemcpy of its output bytes (target >= 0.5);
//   4. a Loader with the GPU stage feeding a synthetic step (a kernel spinning for T on the
//      trainer's stream): the share of the trainer stream's time spent idle waiting for data,
//      measured with events, over a sweep of T; the largest step rate with an idle share < 1%.
// All times come from CUDA events (the device's clock), medians of repeats.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/normalize_kernel.h"
#include "cuda/pinned_allocator.h"
#include "gpu_spin_kernel.h"
#include "h5feed/loader.h"
#include "h5feed/writer.h"
#include "transform/output_spec.h"

namespace h5feed::bench {
namespace {

using cuda::Check;

struct Events {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  Events() {
    Check(cudaEventCreate(&start), "cudaEventCreate");
    Check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  double Seconds() const {
    Check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3;
  }
};

template <typename Body>
double MedianSeconds(cudaStream_t stream, int repeats, Body body) {
  std::vector<double> times;
  Events events;
  body();  // warm-up
  for (int i = 0; i < repeats; ++i) {
    Check(cudaEventRecord(events.start, stream), "cudaEventRecord");
    body();
    Check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
    times.push_back(events.Seconds());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct DeviceMemory {
  void* data = nullptr;
  explicit DeviceMemory(size_t bytes) { Check(cudaMalloc(&data, bytes), "cudaMalloc"); }
  ~DeviceMemory() { cudaFree(data); }
};

struct PinnedMemory {
  void* data = nullptr;
  size_t bytes;
  explicit PinnedMemory(size_t size) : bytes(size) {
    data = cuda::PinnedHostAllocator()->Allocate(bytes);
    std::memset(data, 1, bytes);
  }
  ~PinnedMemory() { cuda::PinnedHostAllocator()->Deallocate(data, bytes); }
};

double GBps(double bytes, double seconds) { return bytes / seconds / 1e9; }

void CopyBench(cudaStream_t stream, int64_t batch, const ImageShape& shape) {
  const size_t image_bytes = static_cast<size_t>(batch * shape.bytes());
  const size_t group_bytes = static_cast<size_t>(batch) * 3 * sizeof(int64_t);
  constexpr int kBatches = 16;
  std::vector<std::unique_ptr<PinnedMemory>> slots;
  for (int i = 0; i < 4; ++i)
    slots.push_back(std::make_unique<PinnedMemory>(image_bytes + group_bytes));
  DeviceMemory device_a(image_bytes + group_bytes);
  DeviceMemory device_b(image_bytes + group_bytes);
  const double batched = MedianSeconds(stream, 5, [&] {
    for (int i = 0; i < kBatches; ++i) {
      auto* host = static_cast<uint8_t*>(slots[static_cast<size_t>(i % 4)]->data);
      auto* device = static_cast<uint8_t*>(i % 2 ? device_b.data : device_a.data);
      Check(cudaMemcpyAsync(device, host, image_bytes, cudaMemcpyHostToDevice, stream), "H2D");
      Check(cudaMemcpyAsync(device + image_bytes, host + image_bytes, group_bytes,
                            cudaMemcpyHostToDevice, stream),
            "H2D");
    }
  });
  const size_t large_bytes = kBatches * (image_bytes + group_bytes);
  PinnedMemory large(large_bytes);
  DeviceMemory large_device(large_bytes);
  const double one = MedianSeconds(stream, 5, [&] {
    Check(
        cudaMemcpyAsync(large_device.data, large.data, large_bytes, cudaMemcpyHostToDevice, stream),
        "H2D");
  });
  const double moved = static_cast<double>(kBatches * (image_bytes + group_bytes));
  std::printf("## H2D copies\n\n");
  std::printf(
      "%d batches of %lld x %lldx%lldx%lld uint8 (%.1f MB each, from 4 pinned slots "
      "into 2 device buffers), against one cudaMemcpy of %.0f MB pinned.\n\n",
      kBatches, static_cast<long long>(batch), static_cast<long long>(shape.height),
      static_cast<long long>(shape.width), static_cast<long long>(shape.channels),
      (image_bytes + group_bytes) / 1e6, large_bytes / 1e6);
  std::printf("| copy | GB/s |\n| --- | ---: |\n");
  std::printf("| pinned batches (the stage) | %.2f |\n", GBps(moved, batched));
  std::printf("| one large pinned cudaMemcpy (ceiling) | %.2f |\n", GBps(moved, one));
  std::printf("| **ratio** (target >= 0.90) | **%.3f** |\n\n", one / batched);
}

// One output form a kernel is measured on.
struct Case {
  const char* name;
  ElementType type;
  Layout layout;
  AugmentOptions augment;
};

// A batch of `batch` images of `shape` on the device (a byte pattern, padded by 16 bytes for
// the kernels' aligned loads), its dataset rows 0, 1, ... (also its labels) and room for the
// delivered labels.
struct DeviceBatch {
  DeviceBatch(int64_t batch, const ImageShape& shape)
      : bytes(static_cast<size_t>(batch * shape.bytes())),
        input(bytes + 16),
        indices(static_cast<size_t>(batch) * 8),
        labels(static_cast<size_t>(batch) * 8) {
    std::vector<uint8_t> pattern(bytes + 16);
    for (size_t i = 0; i < pattern.size(); ++i) {
      pattern[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
    }
    Check(cudaMemcpy(input.data, pattern.data(), pattern.size(), cudaMemcpyHostToDevice), "H2D");
    std::vector<int64_t> rows(static_cast<size_t>(batch));
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
    Check(cudaMemcpy(indices.data, rows.data(), rows.size() * 8, cudaMemcpyHostToDevice), "H2D");
  }
  size_t bytes;
  DeviceMemory input;
  DeviceMemory indices;
  DeviceMemory labels;
};

// The kernel's launch for `in` (images of `shape`) into `out`, delivered as `c` says with
// ImageNet's mean and std.
cuda::NormalizeLaunch BenchLaunch(const DeviceBatch& in, void* out, int64_t batch,
                                  const ImageShape& shape, const Case& c) {
  const float mean[3] = {0.485f, 0.456f, 0.406f};
  const float std_dev[3] = {0.229f, 0.224f, 0.225f};
  OutputOptions options;
  options.type = c.type;
  options.layout = c.layout;
  options.augment = c.augment;
  cuda::NormalizeLaunch launch;
  launch.images = static_cast<const uint8_t*>(in.input.data);
  launch.indices = static_cast<const int64_t*>(in.indices.data);
  launch.labels = static_cast<const int64_t*>(in.indices.data);
  launch.labels_out = static_cast<int64_t*>(in.labels.data);
  launch.out = out;
  launch.rows = batch;
  launch.height = shape.height;
  launch.width = shape.width;
  launch.channels = shape.channels;
  launch.spec = transform::MakeOutputSpec(
      transform::MakeNormalizeParams(mean, std_dev, 3, static_cast<int>(shape.channels)), shape,
      options, 1);
  return launch;
}

void KernelBench(cudaStream_t stream, int64_t batch, const ImageShape& shape) {
  const DeviceBatch in(batch, shape);
  const size_t in_bytes = in.bytes;
  DeviceMemory output(in_bytes * 4);
  // The ceiling's copy moves half the kernel's bytes each way: at most (1 + 4) / 2 x input.
  const size_t most_copied = in_bytes * 5 / 2 + 16;
  DeviceMemory copy_from(most_copied);
  DeviceMemory copy_to(most_copied);
  Check(cudaMemset(copy_from.data, 3, most_copied), "cudaMemset");
  std::printf("## Normalize kernel\n\n");
  std::printf(
      "%lld x %lldx%lldx%lld uint8 NHWC in; bytes moved = uint8 read + output "
      "written; the ceiling is a device-to-device cudaMemcpy of half those bytes "
      "(it reads and writes each).\n\n",
      static_cast<long long>(batch), static_cast<long long>(shape.height),
      static_cast<long long>(shape.width), static_cast<long long>(shape.channels));
  std::printf("| output | kernel GB/s | D2D copy GB/s | **ratio** (target >= 0.70) |\n");
  std::printf("| --- | ---: | ---: | ---: |\n");
  AugmentOptions flip_and_pad;
  flip_and_pad.random_flip = true;
  flip_and_pad.random_crop_padding = 4;
  const Case cases[] = {
      {"float32 NCHW", ElementType::kFloat32, Layout::kNCHW, {}},
      {"float32 NHWC", ElementType::kFloat32, Layout::kNHWC, {}},
      {"float16 NCHW", ElementType::kFloat16, Layout::kNCHW, {}},
      {"bfloat16 NHWC", ElementType::kBFloat16, Layout::kNHWC, {}},
      {"float32 NCHW, flip + crop padding 4", ElementType::kFloat32, Layout::kNCHW, flip_and_pad},
  };
  for (const Case& c : cases) {
    const cuda::NormalizeLaunch launch = BenchLaunch(in, output.data, batch, shape, c);
    const double moved =
        static_cast<double>(in_bytes) + static_cast<double>(batch * launch.spec.image_bytes());
    const double kernel = MedianSeconds(stream, 20, [&] { cuda::LaunchNormalize(launch, stream); });
    const auto half = static_cast<size_t>(moved / 2);
    const double copy = MedianSeconds(stream, 20, [&] {
      Check(cudaMemcpyAsync(copy_to.data, copy_from.data, half, cudaMemcpyDeviceToDevice, stream),
            "D2D");
    });
    const double kernel_rate = GBps(moved, kernel);
    const double copy_rate = GBps(2.0 * static_cast<double>(half), copy);
    std::printf("| %s | %.1f | %.1f | **%.3f** |\n", c.name, kernel_rate, copy_rate,
                kernel_rate / copy_rate);
  }
  std::printf("\n");
}

// The resize kernel's output rate against a D2D copy of the same output bytes (issue 19's
// measure: the output is what a resize kernel must write; its reads are a fraction of it).
void ResizeBench(cudaStream_t stream, int64_t batch) {
  const ImageShape stored{256, 256, 3};
  const DeviceBatch in(batch, stored);
  const size_t out_bytes = static_cast<size_t>(batch) * 224 * 224 * 3 * 4;
  DeviceMemory output(out_bytes);
  DeviceMemory copy_to(out_bytes);
  std::printf("## Resize kernel (RandomResizedCrop, validation resize)\n\n");
  std::printf(
      "%lld x 256x256x3 uint8 in, 224x224x3 out; the ceiling is a device-to-device "
      "cudaMemcpy of the output's bytes.\n\n",
      static_cast<long long>(batch));
  std::printf("| view | kernel GB/s of output | D2D copy GB/s | **ratio** (target >= 0.5) |\n");
  std::printf("| --- | ---: | ---: | ---: |\n");
  AugmentOptions train;
  train.random_resized_crop.height = train.random_resized_crop.width = 224;
  train.random_flip = true;
  AugmentOptions validation;
  validation.resize_shorter = 256;
  validation.center_crop_height = validation.center_crop_width = 224;
  const Case cases[] = {
      {"RRC 224 + flip, float32 NCHW", ElementType::kFloat32, Layout::kNCHW, train},
      {"RRC 224 + flip, float32 NHWC", ElementType::kFloat32, Layout::kNHWC, train},
      {"RRC 224 + flip, bfloat16 NHWC", ElementType::kBFloat16, Layout::kNHWC, train},
      {"Resize 256 + center 224, float32 NCHW", ElementType::kFloat32, Layout::kNCHW, validation},
  };
  for (const Case& c : cases) {
    cuda::NormalizeLaunch launch = BenchLaunch(in, output.data, batch, stored, c);
    const auto written = static_cast<size_t>(batch * launch.spec.image_bytes());
    int64_t epoch = 0;  // each launch draws other boxes, as epochs do
    const double kernel = MedianSeconds(stream, 20, [&] {
      launch.epoch = epoch++;
      cuda::LaunchNormalize(launch, stream);
    });
    const double copy = MedianSeconds(stream, 20, [&] {
      Check(cudaMemcpyAsync(copy_to.data, output.data, written, cudaMemcpyDeviceToDevice, stream),
            "D2D");
    });
    const double kernel_rate = GBps(static_cast<double>(written), kernel);
    const double copy_rate = GBps(static_cast<double>(written), copy);
    std::printf("| %s | %.1f | %.1f | **%.3f** |\n", c.name, kernel_rate, copy_rate,
                kernel_rate / copy_rate);
  }
  std::printf("\n");
}

// Writes an uncompressed h5feed file of `samples` images of `shape` (a pattern of bytes).
std::string WriteFile(const std::string& folder, int64_t samples, const ImageShape& shape) {
  const std::string path = folder + "/gpu_bench.h5";
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = 64;
  options.compression = Compression::Parse("none");
  options.overwrite = true;
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  description.classes = {"a", "b"};
  std::vector<uint8_t> pixels(static_cast<size_t>(64 * shape.bytes()));
  for (int64_t first = 0; first < samples; first += 64) {
    for (size_t i = 0; i < pixels.size(); ++i)
      pixels[i] = static_cast<uint8_t>((i * 7 + first) & 0xff);
    const int64_t images = std::min<int64_t>(64, samples - first);
    for (int64_t r = first; r < first + images; ++r) {
      description.labels.push_back(r % 2);
      description.sources.push_back("row" + std::to_string(r));
    }
    writer.Append(
        writer.Encode({pixels.data(), static_cast<size_t>(images * shape.bytes())}, images));
  }
  description.source_kind = "npy";
  writer.Finish(description);
  return path;
}

struct StepResult {
  double idle_share = 0;
  double steps_per_second = 0;
};

// `steps` steps of a synthetic step of `step_ns` fed by a GPU loader; idle share of the
// trainer's stream between the first step's start and the last step's end.
StepResult StepRun(const std::string& path, cudaStream_t trainer, int64_t batch, int64_t step_ns,
                   int steps) {
  LoaderOptions options;
  options.batch_size = batch;
  options.normalize = true;
  options.sampler = SamplerOptions::Parse("chunks:8");
  options.cache_bytes = int64_t{8} << 30;  // the whole file: the host pipeline gathers only
  options.output.cuda_device = 0;
  options.output.cuda_stream = trainer;
  Loader loader = Loader::Open(path, options);
  std::vector<cudaEvent_t> starts(static_cast<size_t>(steps));
  std::vector<cudaEvent_t> ends(static_cast<size_t>(steps));
  for (int i = 0; i < steps; ++i) {
    Check(cudaEventCreate(&starts[static_cast<size_t>(i)]), "cudaEventCreate");
    Check(cudaEventCreate(&ends[static_cast<size_t>(i)]), "cudaEventCreate");
  }
  int64_t epoch = 0;
  loader.SetEpoch(epoch);
  // A warm-up epoch fills the cache; then steps across epochs as a trainer takes them.
  while (loader.Next()) {}
  loader.SetEpoch(++epoch);
  for (int i = 0; i < steps; ++i) {
    std::optional<Batch> next = loader.Next();
    if (!next) {
      loader.SetEpoch(++epoch);
      next = loader.Next();
    }
    // The trainer's stream waits for the batch (inside Next); the step starts when it may.
    Check(cudaEventRecord(starts[static_cast<size_t>(i)], trainer), "cudaEventRecord");
    LaunchSpin(trainer, step_ns);
    Check(cudaEventRecord(ends[static_cast<size_t>(i)], trainer), "cudaEventRecord");
  }
  Check(cudaStreamSynchronize(trainer), "cudaStreamSynchronize");
  double idle_ms = 0;
  for (int i = 1; i < steps; ++i) {
    float gap = 0;
    Check(cudaEventElapsedTime(&gap, ends[static_cast<size_t>(i - 1)],
                               starts[static_cast<size_t>(i)]),
          "cudaEventElapsedTime");
    idle_ms += gap;
  }
  float total_ms = 0;
  Check(cudaEventElapsedTime(&total_ms, starts[0], ends[static_cast<size_t>(steps - 1)]),
        "cudaEventElapsedTime");
  for (int i = 0; i < steps; ++i) {
    cudaEventDestroy(starts[static_cast<size_t>(i)]);
    cudaEventDestroy(ends[static_cast<size_t>(i)]);
  }
  return {idle_ms / total_ms, steps / (total_ms / 1e3)};
}

void StepBench(const std::string& workdir, cudaStream_t trainer, int64_t batch,
               const ImageShape& shape) {
  std::filesystem::create_directories(workdir);
  const std::string path = WriteFile(workdir, 16 * batch, shape);
  std::printf("## Trainer wait with a synthetic step\n\n");
  std::printf(
      "Loader: uncompressed file of %lld x %lldx%lldx%lld, batch %lld, chunks:8, cache "
      "holding the file (after a warm-up epoch), normalize float32 NCHW on device 0, "
      "4 slots. Step: a kernel spinning for T on the trainer's stream; idle share = "
      "time the trainer's stream waited between steps / total, from CUDA events.\n\n",
      static_cast<long long>(16 * batch), static_cast<long long>(shape.height),
      static_cast<long long>(shape.width), static_cast<long long>(shape.channels),
      static_cast<long long>(batch));
  std::printf("| step T (ms) | steps/s | images/s | idle share | < 1%% |\n");
  std::printf("| ---: | ---: | ---: | ---: | --- |\n");
  double best_rate = 0;
  for (double ms : {50.0, 20.0, 10.0, 5.0, 2.0, 1.0, 0.5, 0.2}) {
    const int steps = std::max(20, static_cast<int>(1000 / ms));
    const StepResult result =
        StepRun(path, trainer, batch, static_cast<int64_t>(ms * 1e6), std::min(steps, 400));
    const bool met = result.idle_share < 0.01;
    if (met) best_rate = std::max(best_rate, result.steps_per_second);
    std::printf("| %.1f | %.1f | %.0f | %.4f | %s |\n", ms, result.steps_per_second,
                result.steps_per_second * static_cast<double>(batch), result.idle_share,
                met ? "yes" : "no");
  }
  std::printf(
      "\nLargest step rate with an idle share under 1%%: **%.1f steps/s** (%.0f images/s).\n\n",
      best_rate, best_rate * static_cast<double>(batch));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace h5feed::bench

int main(int argc, char** argv) {
  using namespace h5feed;
  std::string workdir = "/tmp/h5feed-gpu-bench";
  int64_t batch = 256;
  int64_t size = 224;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--workdir")
      workdir = argv[i + 1];
    else if (flag == "--batch")
      batch = std::atoll(argv[i + 1]);
    else if (flag == "--size")
      size = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: gpu_bench [--workdir DIR] [--batch N] [--size S]\n");
      return 2;
    }
  }
  try {
    cudaDeviceProp properties{};
    cuda::Check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
    int driver = 0;
    cudaDriverGetVersion(&driver);
    std::printf("# GPU stage benchmark (issue 4)\n\n");
    std::printf("- GPU: **%s** (device 0, %d SMs, %.0f GiB), CUDA driver %d\n", properties.name,
                properties.multiProcessorCount, properties.totalGlobalMem / double(1 << 30),
                driver);
    std::printf("- Command: `gpu_bench --batch %lld --size %lld` (scripts/gpu_check.sh)\n\n",
                static_cast<long long>(batch), static_cast<long long>(size));
    cudaStream_t stream = nullptr;
    cuda::Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const ImageShape shape{size, size, 3};
    bench::CopyBench(stream, batch, shape);
    bench::KernelBench(stream, batch, shape);
    bench::ResizeBench(stream, batch);
    bench::StepBench(workdir, stream, batch, shape);
    cudaStreamDestroy(stream);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpu_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
