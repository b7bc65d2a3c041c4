// Masks, boxes, box labels and box values through the GPU stage (docs/gpu.md, "Fields on the
// device"): a mask is cropped on the device beside its image (of a file of images at their own
// size: after its crop at the gather, as the image's), boxes are made on the host as on the CPU
// path. Over several epochs of random resized crops, padding crops and flips, several views and
// echo copies, every tensor equals the CPU run's, pixel for pixel and box for box; the CPU run's
// are checked against torchvision's geometry by loader_geometric_fields_test on the same coordinate
// files (geometry_test_file.h).

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "h5feed/loader.h"
#include "lib/cuda/owned_stream.h"
#include "lib/loader/geometry_test_file.h"
#include "lib/loader/test_files.h"
#include "support/cuda_emulated.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::TempFolder;

// On the CUDA emulation every block's threads are host threads (gpu_loader_test.cpp says what
// that costs): a few dozen samples, two epochs there.
using h5feed::testing::kEmulated;

constexpr int64_t kSamples = kEmulated ? 8 : 60;  // emulated: a full batch of 6 and one of 2
constexpr int64_t kEpochs = kEmulated ? 2 : 4;

// One field tensor as delivered: where it was, its shape, and its bytes copied to the host.
struct Tensor {
  int cuda_device = -1;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  bool operator==(const Tensor&) const = default;
};

// Reads `tensor` once the batch is ready on the trainer's stream (its copy is enqueued there).
Tensor Read(const FieldTensor& tensor, cudaStream_t stream) {
  Tensor read{tensor.cuda_device, tensor.shape, {}};
  read.bytes.resize(static_cast<size_t>(tensor.elements()) * ElementBytes(tensor.type));
  if (read.bytes.empty()) return read;
  const cudaMemcpyKind kind =
      tensor.cuda_device >= 0 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
  cuda::Check(cudaMemcpyAsync(read.bytes.data(), tensor.data, read.bytes.size(), kind, stream),
              "copying a field");
  cuda::Check(cudaStreamSynchronize(stream), "waiting for a field");
  return read;
}

struct Delivered {
  std::vector<int64_t> indices;
  int64_t epoch = 0;
  int64_t step = 0;
  // Per view: the mask, the boxes, their counts, their classes and (a file that has them) their
  // per-box values box_ids.
  std::vector<Tensor> masks, boxes, counts, labels, box_ids;
  // The mask's and the boxes' places apart: compared below against the run's device.
  bool operator==(const Delivered& other) const {
    const auto values = [](std::vector<Tensor> tensors) {
      for (Tensor& tensor : tensors) tensor.cuda_device = 0;
      return tensors;
    };
    return indices == other.indices && epoch == other.epoch && step == other.step &&
           values(masks) == values(other.masks) && boxes == other.boxes && counts == other.counts &&
           labels == other.labels && box_ids == other.box_ids;
  }
};

// A batch's rows, position and every view's mask, boxes, counts and box labels.
Delivered ReadBatch(const Batch& batch, cudaStream_t stream) {
  Delivered d;
  d.indices.assign(batch.indices().begin(), batch.indices().end());
  d.epoch = batch.epoch();
  d.step = batch.step();
  const int boxes = batch.field_index("boxes");
  for (int v = 0; v < batch.views(); ++v) {
    // A mask on the device is the device batch's buffer, which the Batch keeps; the boxes and
    // their labels, made on the host, have owners of their own (Batch::field_owner).
    const FieldTensor mask = batch.field_tensor("mask", v);
    CHECK((batch.field_owner(batch.field_index("mask"), v) == nullptr) == (mask.cuda_device >= 0));
    CHECK(batch.field_owner(boxes, v) != nullptr);
    CHECK(batch.field_owner(batch.field_index("box_labels"), v) != nullptr);
    d.masks.push_back(Read(mask, stream));
    d.boxes.push_back(Read(batch.field_tensor(boxes, v), stream));
    d.counts.push_back(Read(batch.box_counts(boxes, v), stream));
    d.labels.push_back(Read(batch.field_tensor("box_labels", v), stream));
    for (int k = 0; k < batch.fields(); ++k) {
      if (batch.field_spec(k).name != "box_ids") continue;
      CHECK(batch.field_owner(k, v) != nullptr);
      d.box_ids.push_back(Read(batch.field_tensor(k, v), stream));
    }
  }
  return d;
}

// kEpochs epochs; from epoch 1 on, view spec 0 at `resized` (height, width) when set.
std::vector<Delivered> Run(const std::string& path, const LoaderOptions& options,
                           std::array<int64_t, 2> resized) {
  const cudaStream_t stream = options.output.cuda_stream.value();
  Loader loader = Loader::Open(path, options);
  std::vector<Delivered> batches;
  for (int64_t epoch = 0; epoch < kEpochs; ++epoch) {
    if (epoch == 1 && resized[0] > 0) loader.SetOutputSize(resized[0], resized[1], 0);
    loader.SetEpoch(epoch);
    while (std::optional<Batch> batch = loader.Next()) batches.push_back(ReadBatch(*batch, stream));
  }
  return batches;
}

// The CPU test's options (geometry_test_file.h), delivered on the GPU stage, where echo 2 is
// the device's copies of one load.
LoaderOptions Options(const cuda::testing::OwnedStream& trainer) {
  LoaderOptions options = testing::GeometryViewsOptions();
  options.output.cuda_stream = trainer.stream;
  return options;
}

// The run of `options` on the CPU and on the GPU: the same batches, every field's tensor equal;
// masks on the device when `device_masks`, boxes on the host.
void CheckGpuAgainstCpu(const std::string& path, LoaderOptions options, bool device_masks,
                        std::array<int64_t, 2> resized = {0, 0}) {
  options.output.cuda_device = -1;
  const std::vector<Delivered> cpu = Run(path, options, resized);
  options.output.cuda_device = 0;
  const std::vector<Delivered> gpu = Run(path, options, resized);
  // ceil(samples / 6) loaded batches an epoch, 2 copies each.
  CHECK(cpu.size() == static_cast<size_t>(kEpochs * (kSamples + 5) / 6 * 2));
  REQUIRE(gpu.size() == cpu.size());
  int64_t boxes = 0;
  for (size_t b = 0; b < gpu.size(); ++b) {
    CAPTURE(b);
    CHECK(gpu[b] == cpu[b]);
    for (size_t v = 0; v < gpu[b].masks.size(); ++v) {
      CHECK(gpu[b].masks[v].cuda_device == (device_masks ? 0 : -1));
      CHECK(gpu[b].boxes[v].cuda_device == -1);
      boxes += gpu[b].boxes[v].shape[1];
      if (!gpu[b].box_ids.empty()) CHECK(gpu[b].box_ids[v].shape == gpu[b].labels[v].shape);
    }
  }
  CHECK(boxes > 0);
}

TEST_CASE("masks cropped on the GPU equal the CPU path's, and boxes too (one image size)") {
  TempFolder folder;
  const std::string path = folder / "geometry.h5";
  // With per-box values, which the boxes bring: kept and dropped with them as on the CPU.
  testing::WriteGeometryTestFile(path, kSamples, false, FieldType::kUint16, "zstd", false, true);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  CheckGpuAgainstCpu(path, options, true);
  // NHWC, and view 0 made smaller after the first epoch: the masks keep their rooms' places.
  options.output.layout = Layout::kNHWC;
  options.output.views[0].max_output_height = 40;
  options.output.views[0].max_output_width = 32;
  CheckGpuAgainstCpu(path, options, true, {28, 20});
}

TEST_CASE("uint8 masks on the GPU follow padding crops and the validation resize") {
  TempFolder folder;
  const std::string path = folder / "geometry.h5";
  testing::WriteGeometryTestFile(path, kSamples, false, FieldType::kUint8);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  AugmentOptions padded;  // the window view: padding shows class 0
  padded.center_crop_height = 40;
  padded.center_crop_width = 56;
  padded.random_crop_padding = 6;
  padded.random_flip = true;
  AugmentOptions validation;
  validation.resize_shorter = 30;
  validation.center_crop_height = validation.center_crop_width = 28;
  options.output.views = {padded, validation};
  options.output.type = ElementType::kFloat16;
  CheckGpuAgainstCpu(path, options, true);
}

// The values of `mask` (of `type`, little-endian) equal to `value`.
int64_t CountValue(const Tensor& mask, FieldType type, int value) {
  int64_t count = 0;
  const size_t element = ElementBytes(type);
  for (size_t at = 0; at + element <= mask.bytes.size(); at += element) {
    const int stored = element == 2 ? mask.bytes[at] | (mask.bytes[at + 1] << 8) : mask.bytes[at];
    count += stored == value;
  }
  return count;
}

TEST_CASE("a mask's padding on the GPU is output.mask_fill, as on the CPU") {
  // No stored mask value is 255 (geometry_test_file.h: x < 80, and uint8 masks are % 251): every
  // 255 delivered is padding, which the padding crop puts in most samples.
  TempFolder folder;
  cuda::testing::OwnedStream trainer;
  for (const FieldType type : {FieldType::kUint8, FieldType::kUint16}) {
    const std::string name(ToString(type));
    CAPTURE(name);
    const std::string path = folder / (name + ".h5");
    testing::WriteGeometryTestFile(path, kSamples, false, type);
    LoaderOptions options = Options(trainer);
    AugmentOptions padded;
    padded.center_crop_height = 40;
    padded.center_crop_width = 56;
    padded.random_crop_padding = 6;
    padded.random_flip = true;
    options.output.views = {padded};
    options.output.mask_fill = 255;
    CheckGpuAgainstCpu(path, options, true);
    options.output.cuda_device = -1;
    int64_t filled = 0;
    for (const Delivered& batch : Run(path, options, {0, 0})) {
      filled += CountValue(batch.masks[0], type, 255);
    }
    CHECK(filled > 0);
  }
}

TEST_CASE(
    "masks of images at their own size, cropped at the gather and on the GPU, equal the CPU's") {
  TempFolder folder;
  const std::string path = folder / "own_size.h5";
  testing::WriteGeometryTestFile(path, kSamples, true, FieldType::kUint16, "zstd", false, true);
  cuda::testing::OwnedStream trainer;
  CheckGpuAgainstCpu(path, Options(trainer), true);
  const std::string uint8_path = folder / "own_size_uint8.h5";
  testing::WriteGeometryTestFile(uint8_path, kSamples, true, FieldType::kUint8);
  CheckGpuAgainstCpu(uint8_path, Options(trainer), true);
}

TEST_CASE(
    "masks of images at their own size that all have one, read as they are, equal the CPU's") {
  // No crop at the gather: each mask row is copied whole into the slot (own_size_masks.h), and
  // the device crops its padding window and flips it as a file of one size's.
  TempFolder folder;
  const std::string path = folder / "own_size_of_one.h5";
  testing::WriteGeometryTestFile(path, kSamples, true, FieldType::kUint16, "zstd", true);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  AugmentOptions padded;
  padded.random_crop_padding = 6;
  padded.random_flip = true;
  options.output.views = {padded};
  CheckGpuAgainstCpu(path, options, true);
}

// A trainer stopped after `stop` batches of epoch 1 and resumed by a new loader from its state:
// the first loader's batches, then the new one's.
std::vector<Delivered> StoppedAndResumed(const std::string& path, const LoaderOptions& options,
                                         int64_t stop) {
  const cudaStream_t stream = options.output.cuda_stream.value();
  std::vector<Delivered> batches;
  LoaderState state;
  {
    Loader first = Loader::Open(path, options);
    first.SetEpoch(1);
    for (int64_t b = 0; b < stop; ++b) {
      std::optional<Batch> batch = first.Next();
      REQUIRE(batch);
      batches.push_back(ReadBatch(*batch, stream));
    }
    state = first.State();
  }
  Loader resumed = Loader::Open(path, options);
  resumed.Restore(state);
  while (std::optional<Batch> batch = resumed.Next()) batches.push_back(ReadBatch(*batch, stream));
  return batches;
}

TEST_CASE(
    "a rank resumed mid-echo on the GPU delivers the uninterrupted CPU run's masks and boxes") {
  TempFolder folder;
  const std::string path = folder / "geometry.h5";
  testing::WriteGeometryTestFile(path, 2 * kSamples + 3, false);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  options.shard = {1, 2, false};  // rank 1 of 2: its own rows, the epoch's padding included
  options.output.cuda_device = -1;
  std::vector<Delivered> cpu;  // epoch 1 uninterrupted
  {
    Loader loader = Loader::Open(path, options);
    loader.SetEpoch(1);
    while (std::optional<Batch> batch = loader.Next())
      cpu.push_back(ReadBatch(*batch, trainer.stream));
  }
  REQUIRE(cpu.size() >= 4);
  options.output.cuda_device = 0;
  // Stopped after an echo copy 0 (the next batch is the device's second copy of one load) and
  // after a whole load (the next is a new load).
  for (const int64_t stop : {int64_t{1}, int64_t{2}, static_cast<int64_t>(cpu.size()) - 1}) {
    CAPTURE(stop);
    const std::vector<Delivered> gpu = StoppedAndResumed(path, options, stop);
    REQUIRE(gpu.size() == cpu.size());
    for (size_t b = 0; b < gpu.size(); ++b) {
      CAPTURE(b);
      CHECK(gpu[b] == cpu[b]);
    }
  }
}

TEST_CASE(
    "the rows a skipped damaged chunk leaves out take their masks and boxes along on the GPU") {
  // Two damages to chunk 1 (rows 8-15): the start of its zstd frame, so that it fails to
  // decompress, and one byte of row 11 in an uncompressed file, which reads and fails only that
  // row's checksum. Either way the whole chunk is left out of every batch, decided before any
  // of its rows is delivered, so the GPU stage's run and the CPU's deliver the same rows.
  struct Damage {
    std::string compression;
    int64_t at;  // bytes into chunk 1
  };
  const int64_t row_bytes = testing::kGeometryShape.bytes();
  for (const Damage& damage : {Damage{"zstd", 0}, Damage{"none", 3 * row_bytes + row_bytes / 2}}) {
    CAPTURE(damage.compression);
    TempFolder folder;
    const std::string path = folder / "damaged.h5";
    testing::WriteGeometryTestFile(path, 2 * kSamples + 3, false, FieldType::kUint16,
                                   damage.compression);  // chunks of 8 rows
    std::string program = "import h5py\n";
    program += "with h5py.File('" + path + "', 'r') as f:\n";
    program += "    info = f['images'].id.get_chunk_info(1)\n";
    program += "with open('" + path + "', 'r+b') as out:\n";
    program += "    out.seek(info.byte_offset + " + std::to_string(damage.at) + ")\n";
    program += "    out.write(bytes(range(100, 116)))\n";
    testing::RunPython(path + ".corrupt", program);
    cuda::testing::OwnedStream trainer;
    LoaderOptions options = Options(trainer);
    options.skip_corrupt_chunks = true;  // short batches, each echo copy permuted on the device
    options.output.cuda_device = -1;
    const std::vector<Delivered> cpu = Run(path, options, {0, 0});
    options.output.cuda_device = 0;
    const std::vector<Delivered> gpu = Run(path, options, {0, 0});
    REQUIRE(gpu.size() == cpu.size());
    int64_t rows = 0;
    for (size_t b = 0; b < gpu.size(); ++b) {
      CAPTURE(b);
      CHECK(gpu[b] == cpu[b]);
      for (const int64_t row : cpu[b].indices) rows += row >= 8 && row < 16 ? 0 : 1;
    }
    // Every row outside chunk 1 in every epoch and echo copy, and none of chunk 1's.
    int64_t delivered = 0;
    for (const Delivered& d : cpu) delivered += static_cast<int64_t>(d.indices.size());
    CHECK(rows == kEpochs * 2 * (2 * kSamples + 3 - 8));
    CHECK(delivered == rows);
  }
}

}  // namespace
}  // namespace h5feed
