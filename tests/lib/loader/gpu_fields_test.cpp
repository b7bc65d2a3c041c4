// The fields a Loader run through the GPU stage delivers (LoaderOptions::fields with
// output.cuda_device; docs/gpu.md, "Fields on the device"): array fields as device tensors,
// each echo copy's rows permuted with its images on the device, and the same rows on the host
// (field_bytes), permuted by the same orders; bytes and text read at the batch's indices.
// Batch for batch they equal the CPU run's, and every row is the file's (written with
// Writer::AppendFields) at the batch's index, with augmentation, device-side echo, several
// views, and a file without labels.

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "h5feed/loader.h"
#include "lib/cuda/owned_stream.h"
#include "lib/loader/damaged_field_rows.h"
#include "lib/loader/field_test_file.h"
#include "support/cuda_emulated.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::TempFolder;

// On the CUDA emulation every block's threads are host threads (gpu_loader_test.cpp says what
// that costs): a file of a few dozen small images there.
using h5feed::testing::kEmulated;

const ImageShape kShape = kEmulated ? ImageShape{9, 8, 3} : ImageShape{32, 30, 3};
constexpr int64_t kSamples = kEmulated ? 21 : 301;
constexpr int64_t kBatch = kEmulated ? 8 : 32;

struct Delivered {
  std::vector<int64_t> labels;  // the host labels, and the device ones copied back
  std::vector<int64_t> indices;
  std::vector<std::vector<uint8_t>> fields;   // field k: every sample's bytes, one after another
  std::vector<std::vector<uint8_t>> tensors;  // array field k's tensor, copied to the host
  int64_t step = 0;
  bool operator==(const Delivered&) const = default;
};

// A batch's labels, rows, fields and array field tensors, its fields checked against the file.
Delivered Read(const Batch& batch, const LoaderOptions& options, bool labelled) {
  Delivered d;
  const auto stream = options.output.cuda_stream.value();
  // A device tensor is read once the batch is ready on the trainer's stream.
  const testing::TensorBytes bytes_of = [&](const FieldTensor& tensor) {
    std::vector<uint8_t> bytes(static_cast<size_t>(tensor.elements()) * ElementBytes(tensor.type));
    const cudaMemcpyKind kind =
        tensor.cuda_device >= 0 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
    cuda::Check(cudaMemcpyAsync(bytes.data(), tensor.data, bytes.size(), kind, stream), "copy");
    cuda::Check(cudaStreamSynchronize(stream), "sync");
    d.tensors.push_back(bytes);
    return bytes;
  };
  d.indices =
      testing::CheckBatchFields(batch, options.fields, options.output.cuda_device, bytes_of);
  d.step = batch.step();
  const TensorView labels = batch.label_tensor();
  if (labelled) {
    CHECK(labels.cuda_device == options.output.cuda_device);
    d.labels.resize(static_cast<size_t>(batch.size()));
    const cudaMemcpyKind kind =
        labels.cuda_device >= 0 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
    cuda::Check(cudaMemcpyAsync(d.labels.data(), labels.data, d.labels.size() * 8, kind, stream),
                "copy");
    cuda::Check(cudaStreamSynchronize(stream), "sync");
    CHECK(std::vector<int64_t>(batch.labels().begin(), batch.labels().end()) == d.labels);
    for (size_t i = 0; i < d.labels.size(); ++i) CHECK(d.labels[i] == d.indices[i] % 7);
  } else {
    CHECK(batch.labels().empty());
    CHECK(labels.data == nullptr);
  }
  for (int k = 0; k < batch.fields(); ++k) {
    std::vector<uint8_t>& values = d.fields.emplace_back();
    for (int64_t i = 0; i < batch.size(); ++i) {
      const std::span<const uint8_t> value = batch.field_bytes(k, i);
      values.insert(values.end(), value.begin(), value.end());
    }
  }
  return d;
}

// One epoch (epoch 1), every batch's fields checked against the file; with `stop` >= 0, read
// by a trainer stopped after `stop` batches and resumed by a new loader from its state.
std::vector<Delivered> Epoch(const std::string& path, const LoaderOptions& options, bool labelled,
                             int64_t stop = -1) {
  std::vector<Delivered> batches;
  std::optional<LoaderState> state;
  if (stop >= 0) {
    Loader first = Loader::Open(path, options);
    first.SetEpoch(1);
    for (int64_t b = 0; b < stop; ++b) {
      std::optional<Batch> batch = first.Next();
      REQUIRE(batch);
      batches.push_back(Read(*batch, options, labelled));
    }
    state = first.State();
  }
  Loader loader = Loader::Open(path, options);
  if (state)
    loader.Restore(*state);
  else
    loader.SetEpoch(1);
  while (auto batch = loader.Next()) batches.push_back(Read(*batch, options, labelled));
  return batches;
}

// The epoch of `options` on the GPU, checked against the same on the CPU: the same batches,
// fields included.
std::vector<Delivered> GpuEpochAsOnCpu(const std::string& path, LoaderOptions options,
                                       bool labelled) {
  options.output.cuda_device = -1;
  const std::vector<Delivered> cpu = Epoch(path, options, labelled);
  options.output.cuda_device = 0;
  std::vector<Delivered> gpu = Epoch(path, options, labelled);
  REQUIRE(gpu.size() == cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    CAPTURE(i);
    CHECK(gpu[i] == cpu[i]);
  }
  return gpu;
}

// How many times each dataset row was delivered in `batches`.
std::map<int64_t, int> RowCounts(const std::vector<Delivered>& batches) {
  std::map<int64_t, int> rows;
  for (const Delivered& d : batches) {
    for (int64_t row : d.indices) ++rows[row];
  }
  return rows;
}

// The epoch of `options` on the CPU and on the GPU: the same batches, fields included, every
// row `echo` times.
void CheckGpuAgainstCpu(const std::string& path, const LoaderOptions& options, bool labelled) {
  const std::vector<Delivered> gpu = GpuEpochAsOnCpu(path, options, labelled);
  // ceil(samples / batch) loaded batches, `echo` copies each.
  CHECK(gpu.size() == static_cast<size_t>((kSamples + kBatch - 1) / kBatch * options.echo));
  const std::map<int64_t, int> rows = RowCounts(gpu);
  CHECK(rows.size() == static_cast<size_t>(kSamples));
  for (const auto& [row, count] : rows) CHECK(count == options.echo);
}

LoaderOptions Options(const cuda::testing::OwnedStream& trainer) {
  LoaderOptions options;
  options.batch_size = kBatch;
  options.normalize = true;
  options.seed = 3;
  options.echo = 2;  // on the GPU: the device's echo copies, permuted from one load
  options.slots = 3;
  options.threads = 2;
  options.open_probe = false;
  options.output.cuda_stream = trainer.stream;
  options.on_warning = [](const std::string&) {};
  return options;
}

TEST_CASE(
    "a GPU run delivers the CPU run's array fields on the device, each echo copy's with its rows") {
  TempFolder folder;
  cuda::testing::OwnedStream trainer;
  for (const bool labelled : {true, false}) {
    CAPTURE(labelled);
    const std::string path = folder / (labelled ? "labelled.h5" : "unlabelled.h5");
    testing::WriteFieldTestFile(path, kSamples, kShape, 4, labelled);
    LoaderOptions options = Options(trainer);
    options.fields = testing::AllTestFieldNames();
    options.output.augment.random_flip = true;
    options.output.augment.random_crop_padding = 2;
    CheckGpuAgainstCpu(path, options, labelled);
  }
}

TEST_CASE("array fields streamed with the image chunks reach the device as held ones do") {
  TempFolder folder;
  cuda::testing::OwnedStream trainer;
  const std::string path = folder / "streamed.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, 4, true);
  LoaderOptions options = Options(trainer);
  options.fields = testing::AllTestFieldNames();
  options.held_field_bytes = 1;  // no field fits: every array field is streamed
  options.cache_bytes = 0;       // and read again whenever its chunk is
  options.output.augment.random_flip = true;
  CheckGpuAgainstCpu(path, options, true);
}

TEST_CASE("several views on the GPU carry each sample's fields once, as on the CPU") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, 4, true);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  options.fields = {"caption", "a_uint8", "a_float16", "blob"};
  options.sampler = SamplerOptions::Parse("random");
  AugmentOptions global;
  global.random_resized_crop.height = global.random_resized_crop.width = kEmulated ? 6 : 24;
  global.random_flip = true;
  global.count = 2;
  AugmentOptions local = global;
  local.random_resized_crop.height = local.random_resized_crop.width = kEmulated ? 4 : 12;
  local.random_resized_crop.scale_max = 0.4;
  local.count = 1;
  options.output.views = {global, local};
  CheckGpuAgainstCpu(path, options, true);
}

TEST_CASE("a held field's damaged row leaves its chunk out on the GPU as on the CPU") {
  TempFolder folder;
  const std::string path = folder / "damaged.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, 4, true, Compression::Parse("none"));
  testing::FlipFieldRowBit(path, "a_float32", 9, 4 * 10, 4);  // float32[5,2]: chunk 2, rows 8-11
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  options.fields = {"a_float32", "a_uint8", "caption"};
  options.skip_corrupt_chunks = true;
  options.output.augment.random_flip = true;
  std::map<int64_t, int> rows = RowCounts(GpuEpochAsOnCpu(path, options, true));
  for (int64_t row = 0; row < kSamples; ++row) {
    CAPTURE(row);
    CHECK(rows[row] == (row >= 8 && row < 12 ? 0 : options.echo));
  }
}

TEST_CASE("a rank resumed mid-echo on the GPU delivers the CPU run's array fields with its rows") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteFieldTestFile(path, kSamples, kShape, 4, true);
  cuda::testing::OwnedStream trainer;
  LoaderOptions options = Options(trainer);
  options.fields = testing::AllTestFieldNames();
  options.output.augment.random_flip = true;
  options.shard = {1, 2, false};  // rank 1 of 2: its own rows, the epoch's padding included
  options.output.cuda_device = -1;
  const std::vector<Delivered> cpu = Epoch(path, options, true);
  REQUIRE(cpu.size() >= 4);
  options.output.cuda_device = 0;
  // After an echo copy 0 (the next batch is the device's second copy of one load), after a
  // whole load, and before the last batch.
  for (const int64_t stop : {int64_t{1}, int64_t{2}, static_cast<int64_t>(cpu.size()) - 1}) {
    CAPTURE(stop);
    const std::vector<Delivered> gpu = Epoch(path, options, true, stop);
    REQUIRE(gpu.size() == cpu.size());
    for (size_t i = 0; i < gpu.size(); ++i) {
      CAPTURE(i);
      CHECK(gpu[i] == cpu[i]);
    }
  }
}

}  // namespace
}  // namespace h5feed
