// A whole Loader run through the GPU stage equals the same run on the CPU path, batch for
// batch and bit for bit (images, labels, dataset rows), for every element type and layout,
// with augmentation, views (of images at their own size too) and device-side echo; resuming
// mid-echo gives the uninterrupted batches.

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "h5feed/loader.h"
#include "lib/cuda/owned_stream.h"
#include "lib/loader/delivered_images.h"
#include "lib/loader/test_files.h"
#include "support/cuda_emulated.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using testing::TempFolder;

// On the CUDA emulation (tests/support/cuda_emulation/) each block's 256 threads are host
// threads, about a millisecond for each __syncthreads on two cores: the emulated runs take
// files of a few dozen small images (still several loaded batches, a short last one, every
// echo copy) and smaller views, with the same options otherwise, and each type, layout and
// SetOutputSize once rather than in every combination (gpu_normalize_test's kernel cases
// take every type and layout).
using h5feed::testing::kEmulated;

struct Delivered {
  std::vector<uint8_t> images;
  std::vector<int64_t> labels;
  std::vector<int64_t> indices;
  int64_t step = 0;
  bool operator==(const Delivered&) const = default;
};

// One epoch from `state` on; device tensors are copied back on the trainer's stream.
// `prepare` runs on the loader first.
std::vector<Delivered> Epoch(const std::string& path, const LoaderOptions& options,
                             const LoaderState* state = nullptr,
                             const std::function<void(Loader&)>& prepare = nullptr) {
  Loader loader = Loader::Open(path, options);
  if (prepare) prepare(loader);
  if (state)
    loader.Restore(*state);
  else
    loader.SetEpoch(1);
  const auto stream = options.output.cuda_stream.value();
  std::vector<Delivered> batches;
  while (auto batch = loader.Next()) {
    const TensorView labels = batch->label_tensor();
    CHECK(labels.cuda_device == options.output.cuda_device);
    Delivered d;
    const cudaMemcpyKind kind =
        labels.cuda_device >= 0 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
    for (int view = 0; view < batch->views(); ++view) {  // every view's bytes, one after another
      const TensorView images = batch->image_tensor(view);
      CHECK(images.cuda_device == options.output.cuda_device);
      const size_t at = d.images.size();
      const auto bytes = static_cast<size_t>(images.shape[0] * images.shape[1] * images.shape[2] *
                                             images.shape[3]) *
                         testing::ElementBytes(images.type);
      d.images.resize(at + bytes);
      cuda::Check(cudaMemcpyAsync(d.images.data() + at, images.data, bytes, kind, stream), "copy");
    }
    d.labels.resize(static_cast<size_t>(batch->size()));
    cuda::Check(cudaMemcpyAsync(d.labels.data(), labels.data, d.labels.size() * 8, kind, stream),
                "copy");
    cuda::Check(cudaStreamSynchronize(stream), "sync");
    CHECK(std::vector<int64_t>(batch->labels().begin(), batch->labels().end()) == d.labels);
    d.indices.assign(batch->indices().begin(), batch->indices().end());
    d.step = batch->step();
    batches.push_back(std::move(d));
  }
  return batches;
}

// An epoch of `options` on the CPU and on the GPU, as opened and with view spec 0 set to
// height x width before it (SetOutputSize): the GPU's batches must equal the CPU's. Returns how
// many batches an epoch delivered.
size_t CheckViewsOnGpu(const std::string& path, LoaderOptions options, int64_t height,
                       int64_t width) {
  size_t batches = 0;
  for (bool resized : {false, true}) {
    // Emulated: NCHW as opened, NHWC after SetOutputSize.
    if (kEmulated && resized != (options.output.layout == Layout::kNHWC)) continue;
    CAPTURE(resized);
    const auto run = [&](int device) {
      options.output.cuda_device = device;
      return Epoch(path, options, nullptr, [&](Loader& loader) {
        if (resized) loader.SetOutputSize(height, width, 0);
      });
    };
    const std::vector<Delivered> cpu = run(-1);
    const std::vector<Delivered> gpu = run(0);
    REQUIRE(gpu.size() == cpu.size());
    for (size_t i = 0; i < gpu.size(); ++i) CHECK(gpu[i] == cpu[i]);
    batches = gpu.size();
  }
  return batches;
}

TEST_CASE("a loader run on the GPU equals the CPU run bit for bit") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  const int64_t samples = kEmulated ? 20 : 301;
  const int64_t batch_size = kEmulated ? 8 : 32;
  const int64_t crop = kEmulated ? 6 : 28;
  testing::WriteH5feedFile(path, samples, kEmulated ? ImageShape{9, 8, 3} : ImageShape{32, 30, 3},
                           kEmulated ? 4 : 16, Compression::Parse("zstd"));
  cuda::testing::OwnedStream trainer;
  for (ElementType type : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kBFloat16}) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      // Emulated: each type in one layout, both layouts (the kernel tests take every pair).
      if (kEmulated && (static_cast<int>(type) + static_cast<int>(layout)) % 2 != 0) continue;
      CAPTURE(static_cast<int>(type));
      CAPTURE(static_cast<int>(layout));
      LoaderOptions options;
      options.batch_size = batch_size;
      options.normalize = true;
      options.seed = 3;
      options.echo = 2;
      options.slots = 3;
      options.output.type = type;
      options.output.layout = layout;
      options.output.augment.random_flip = true;
      options.output.augment.random_crop_padding = 4;
      options.output.augment.center_crop_height = crop;
      options.output.augment.center_crop_width = crop;
      options.output.cuda_stream = trainer.stream;
      std::vector<std::string> warnings;
      options.on_warning = [&](const std::string& w) { warnings.push_back(w); };
      const std::vector<Delivered> cpu = Epoch(path, options);
      options.output.cuda_device = 0;
      const std::vector<Delivered> gpu = Epoch(path, options);
      CHECK(warnings.empty());
      REQUIRE(gpu.size() == cpu.size());
      // ceil(samples / batch_size) loaded batches, 2 copies each.
      CHECK(gpu.size() == static_cast<size_t>((samples + batch_size - 1) / batch_size * 2));
      for (size_t i = 0; i < gpu.size(); ++i) CHECK(gpu[i] == cpu[i]);
    }
  }
}

TEST_CASE("resizing views on the GPU equal the CPU's bit for bit, also after SetOutputSize") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  // Emulated: a quarter of the sizes (and 33 x 16 after SetOutputSize: two tiles across).
  const int64_t k = kEmulated ? 4 : 1;
  testing::WriteH5feedFile(path, kEmulated ? 12 : 150, {64 / k, 80 / k, 3}, kEmulated ? 4 : 16,
                           Compression::Parse("zstd"));
  cuda::testing::OwnedStream trainer;
  for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
    LoaderOptions options;
    options.batch_size = kEmulated ? 8 : 32;
    options.normalize = true;
    options.seed = 5;
    options.echo = 2;
    options.slots = 3;
    options.output.type = ElementType::kBFloat16;
    options.output.layout = layout;
    AugmentOptions global;
    global.random_resized_crop.height = global.random_resized_crop.width = 56 / k;
    global.random_resized_crop.scale_min = 0.4;
    global.random_flip = true;
    global.count = 2;
    global.max_output_height = global.max_output_width = kEmulated ? 33 : 64;
    AugmentOptions local = global;
    local.random_resized_crop.height = local.random_resized_crop.width = 24 / k;
    local.random_resized_crop.scale_min = 0.05;
    local.random_resized_crop.scale_max = 0.4;
    local.count = 3;
    local.max_output_height = local.max_output_width = 0;
    AugmentOptions validation;
    validation.resize_shorter = 72 / k;
    validation.center_crop_height = validation.center_crop_width = 64 / k;
    validation.antialias = false;
    options.output.views = {global, local, validation};
    options.output.cuda_stream = trainer.stream;
    CheckViewsOnGpu(path, options, kEmulated ? 16 : 64, kEmulated ? 33 : 48);
  }
}

TEST_CASE("views of images at their own size on the GPU equal the CPU's bit for bit") {
  // Each sample's crops are made on the host into rooms of one stacked image
  // (transform/own_size_views.h) and each view is a window of its room, flipped and normalized
  // on the device as for any file. Raw pixels stand for every encoding: a JPEG is decoded on
  // the host before the same crops.
  TempFolder folder;
  const std::string path = folder / "own_size.h5";
  // Emulated: 6 images, views of a quarter of the sizes.
  const int64_t k = kEmulated ? 4 : 1;
  const int64_t samples = kEmulated ? 6 : 150;
  const int64_t batch_size = kEmulated ? 4 : 32;
  testing::WriteOwnSizeFile(path, samples);
  cuda::testing::OwnedStream trainer;
  for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
    LoaderOptions options;
    options.batch_size = batch_size;
    options.normalize = true;
    options.seed = 7;
    options.echo = 2;
    options.slots = 3;
    options.output.type = ElementType::kFloat16;
    options.output.layout = layout;
    AugmentOptions global;
    global.random_resized_crop.height = global.random_resized_crop.width = 48 / k;
    global.random_flip = true;
    global.count = 2;
    global.max_output_height = global.max_output_width = 56 / k;
    AugmentOptions local;
    local.random_resized_crop.height = local.random_resized_crop.width = 20 / k;
    local.random_resized_crop.scale_max = 0.4;
    local.random_flip = true;
    local.count = 3;
    AugmentOptions validation;
    validation.resize_shorter = 40 / k;
    validation.center_crop_height = validation.center_crop_width = 32 / k;
    options.output.views = {global, local, validation};
    options.output.cuda_stream = trainer.stream;
    // ceil(samples / batch_size) loaded batches, 2 copies each.
    CHECK(CheckViewsOnGpu(path, options, 56 / k, 40 / k) ==
          static_cast<size_t>((samples + batch_size - 1) / batch_size * 2));
  }
}

TEST_CASE("a GPU run resumed mid-echo delivers the batches the uninterrupted run did") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, kEmulated ? 24 : 200,
                           kEmulated ? ImageShape{8, 8, 3} : ImageShape{16, 16, 3}, 8,
                           Compression::Parse("none"));
  cuda::testing::OwnedStream trainer;
  LoaderOptions options;
  options.batch_size = kEmulated ? 4 : 16;
  options.normalize = true;
  options.echo = 3;
  options.output.augment.random_flip = true;
  options.output.cuda_device = 0;
  options.output.cuda_stream = trainer.stream;
  const std::vector<Delivered> whole = Epoch(path, options);
  Loader probe = Loader::Open(path, options);
  LoaderState resumed = probe.State();  // this seed and fingerprint
  resumed.epoch = 1;
  resumed.step = 7;  // loaded step 2, copy 1
  const std::vector<Delivered> rest = Epoch(path, options, &resumed);
  REQUIRE(rest.size() + 7 == whole.size());
  for (size_t i = 0; i < rest.size(); ++i) CHECK(rest[i] == whole[i + 7]);
}

TEST_CASE("a trainer holding every device buffer gets an error from Next, not a hang") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 64, {8, 8, 3}, 8, Compression::Parse("none"));
  LoaderOptions options;
  options.batch_size = 8;
  options.normalize = true;
  options.slots = 2;
  options.output.cuda_device = 0;
  Loader loader = Loader::Open(path, options);
  std::vector<Batch> held;
  held.push_back(*loader.Next());
  held.push_back(*loader.Next());
  CHECK_THROWS_AS(loader.Next(), Error);
  held.clear();
  CHECK(loader.Next().has_value());
}

TEST_CASE("the run's end comes while the trainer holds every device buffer") {
  TempFolder folder;
  const std::string path = folder / "train.h5";
  testing::WriteH5feedFile(path, 24, {8, 8, 3}, 8, Compression::Parse("none"));
  LoaderOptions options;
  options.batch_size = 8;
  options.normalize = true;
  options.slots = 2;  // two device buffers
  options.output.cuda_device = 0;
  Loader loader = Loader::Open(path, options);
  std::deque<Batch> held;  // the batch before the one asked for; at the end, both buffers
  for (int step = 0; step < 3; ++step) {
    while (held.size() > 1) held.pop_front();
    std::optional<Batch> batch = loader.Next();
    REQUIRE(batch.has_value());
    held.push_back(std::move(*batch));
  }
  // Once the run has ended (WaitReady: Next returns at once), its end needs no buffer.
  REQUIRE(loader.WaitReady(std::chrono::minutes(1)));
  CHECK_FALSE(loader.Next().has_value());
  CHECK_FALSE(loader.Next().has_value());
  held.clear();
  loader.SetEpoch(1);
  CHECK(loader.Next().has_value());
}

}  // namespace
}  // namespace h5feed
