// The GPU stage's ordering (cuda/device_stage.h): with a trainer whose every step reads its
// batch late (a spinning kernel on the trainer's stream) and releases it right after
// enqueueing, many tiny batches flow through two device buffers and a few pinned host slots;
// a host slot overwritten before its copy finished, or a device buffer before the trainer's
// stream passed its release, shows up as a batch with the wrong values. Run it under
// compute-sanitizer memcheck and racecheck too (scripts/gpu_check.sh).

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/device_stage.h"
#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "owned_stream.h"
#include "support/cuda_emulated.h"
#include "test_kernels.h"
#include "transform/float_convert.h"
#include "transform/output_views.h"

namespace h5feed::cuda {
namespace {

// On the CUDA emulation (tests/support/cuda_emulation/) each block's 256 threads are host
// threads, about a millisecond for each __syncthreads on two cores: fewer and smaller batches,
// and a check kernel of 2 blocks of 32 threads (any size reads the whole batch). The emulated
// streams wait a random few tens of microseconds before each operation, which varies the order of
// what no event orders from batch to batch.
using h5feed::testing::kEmulated;

uint32_t ExpectedBits(const transform::OutputSpec& spec, uint8_t pixel) {
  const float value =
      transform::NormalizePixel(pixel, spec.normalize.scale[0], spec.normalize.bias[0]);
  if (spec.type == ElementType::kFloat16) return transform::FloatToHalfBits(value);
  if (spec.type == ElementType::kBFloat16) return transform::FloatToBFloat16Bits(value);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Streams `batches` loaded batches, `echo` copies each, and returns the wrong elements seen.
unsigned long long Stream(ElementType type, int echo, int64_t batches, int64_t spin_ns) {
  const ImageShape shape = kEmulated ? ImageShape{4, 4, 3} : ImageShape{16, 16, 3};
  constexpr int64_t kRows = 8;
  const float mean[3] = {0.1f, 0.2f, 0.3f};
  const float std[3] = {0.5f, 0.5f, 0.5f};
  OutputOptions output;
  output.type = type;
  DeviceStageOptions options;
  testing::OwnedStream trainer;
  options.device = 0;
  options.trainer_stream = trainer.stream;
  options.capacity = kRows;
  options.shape = shape;
  // One channel's factors for all three: every element of a batch has one expected value.
  const float same_mean[3] = {mean[0], mean[0], mean[0]};
  const float same_std[3] = {std[0], std[0], std[0]};
  options.views = transform::MakeOutputViews(
      transform::MakeNormalizeParams(same_mean, same_std, 3, 3), shape, output, 1);
  const transform::OutputSpec& spec = options.views.views[0];
  options.echo = echo;
  options.inputs = 2;
  options.outputs = 2;
  std::unique_ptr<DeviceStage> stage = OpenDeviceStage(options);
  const memory::SlotLayout layout(
      kRows, shape,
      memory::SlotContents{.output_image_bytes = 0, .row_orders = echo, .field_row_bytes = {}});
  memory::SlotPool pool(3, layout.bytes(), stage->host_allocator());

  unsigned long long* mismatches = nullptr;
  Check(cudaMalloc(&mismatches, sizeof *mismatches), "cudaMalloc");
  // On the trainer's stream, which the legacy stream's cudaMemset does not order (the stream
  // is non-blocking).
  Check(cudaMemsetAsync(mismatches, 0, sizeof *mismatches, trainer.stream), "cudaMemsetAsync");
  const int64_t elements = kRows * spec.image_elements();
  const int element_bytes = type == ElementType::kFloat32 ? 4 : 2;
  for (int64_t b = 0; b < batches; ++b) {
    // Waits (on the host) only for a slot whose copy finished: the stage returns it then.
    std::optional<memory::SlotLease> lease = pool.Acquire(std::stop_token{});
    REQUIRE(lease);
    const memory::SlotView view = layout.View(lease->bytes());
    const auto pixel = static_cast<uint8_t>(b % 251);
    std::memset(view.images.data(), pixel, view.images.size());
    for (int64_t i = 0; i < kRows; ++i) {
      view.labels[static_cast<size_t>(i)] = b;
      view.indices[static_cast<size_t>(i)] = b * kRows + i;
    }
    for (int copy = 0; copy < echo; ++copy) {
      for (int64_t i = 0; i < kRows; ++i) {
        view.orders[static_cast<size_t>(copy * kRows + i)] = copy % 2 ? kRows - 1 - i : i;
      }
    }
    // Filled (above) as soon as the stage hands the slot back: after its copy, or too early.
    REQUIRE(stage->free_inputs() > 0);
    const int input = stage->Load(MakeHostBatch(std::move(*lease), layout, kRows, 0));
    for (int copy = 0; copy < echo; ++copy) {
      REQUIRE(stage->free_outputs() > 0);  // the previous batch was released below
      std::shared_ptr<DeviceBatch> batch = stage->Emit(input, copy, copy == echo - 1);
      batch->MakeReady();
      testing::LaunchCheckBatch(trainer.stream, kEmulated ? 2 : 64, kEmulated ? 32 : 256,
                                batch->images(), element_bytes, elements, ExpectedBits(spec, pixel),
                                batch->labels(), kRows, b, spin_ns, mismatches);
      // Released at once, while the check still runs: the stage must wait for the stream.
    }
  }
  Check(cudaStreamSynchronize(trainer.stream), "cudaStreamSynchronize");
  unsigned long long result = 0;
  Check(cudaMemcpy(&result, mismatches, sizeof result, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(mismatches);
  stage->Synchronize();
  return result;
}

TEST_CASE("no device buffer or host slot is overwritten while it is still read") {
  // Under compute-sanitizer (scripts/gpu_device_run.sh) a tenth of the batches: instrumented
  // kernels run 10-100x slower.
  const int64_t scale = kEmulated ? 150 : std::getenv("H5FEED_GPU_TEST_QUICK") ? 10 : 1;
  CHECK(Stream(ElementType::kFloat32, 1, 3000 / scale, 20'000) == 0);
  CHECK(Stream(ElementType::kFloat16, 2, 1500 / scale, 20'000) == 0);
  CHECK(Stream(ElementType::kBFloat16, 3, 1000 / scale, 0) == 0);
}

TEST_CASE("a batch held past its stage keeps its device memory") {
  const ImageShape shape{4, 4, 3};
  const float mean[3] = {0, 0, 0};
  const float std[3] = {1, 1, 1};
  DeviceStageOptions options;
  options.capacity = 2;
  options.shape = shape;
  options.views = transform::MakeOutputViews(transform::MakeNormalizeParams(mean, std, 3, 3), shape,
                                             OutputOptions{}, 0);
  std::unique_ptr<DeviceStage> stage = OpenDeviceStage(options);
  const memory::SlotLayout layout(
      2, shape,
      memory::SlotContents{.output_image_bytes = 0, .row_orders = 1, .field_row_bytes = {}});
  memory::SlotPool pool(1, layout.bytes(), stage->host_allocator());
  std::optional<memory::SlotLease> lease = pool.Acquire({});
  REQUIRE(lease);
  const memory::SlotView view = layout.View(lease->bytes());
  std::memset(view.images.data(), 255, view.images.size());
  view.labels[0] = 4;
  view.labels[1] = 5;
  view.orders[0] = 1;
  view.orders[1] = 0;
  const int input = stage->Load(MakeHostBatch(std::move(*lease), layout, 2, 0));
  std::shared_ptr<DeviceBatch> batch = stage->Emit(input, 0, true);
  stage.reset();
  batch->MakeReady();
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<int64_t> labels(2);
  Check(cudaMemcpy(labels.data(), batch->labels(), 16, cudaMemcpyDeviceToHost), "cudaMemcpy");
  CHECK(labels == std::vector<int64_t>{5, 4});  // permuted by the order on the device
  std::vector<float> images(2 * 48);
  Check(cudaMemcpy(images.data(), batch->images(), images.size() * 4, cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  CHECK(images[0] == doctest::Approx(1.0));  // 255 x float(1/255): 1 within an ulp
  CHECK(images[95] == images[0]);
  CHECK(pool.available() == 1);  // the host slot came back once its copy was done
}

}  // namespace
}  // namespace h5feed::cuda
