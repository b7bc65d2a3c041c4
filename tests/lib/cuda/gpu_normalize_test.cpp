// The normalize kernel against the CPU arithmetic of transform/: bit for bit for every element
// type, layout, augmentation and echo order (they share NormalizePixel, the conversions and the
// draws); the shared conversions against CUDA's own instructions for all 2^32 floats; flip and
// crop statistics and reproducibility measured from the kernel's output.

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/normalize_kernel.h"
#include "h5feed/image_shape.h"
#include "support/cuda_emulated.h"
#include "test_kernels.h"
#include "transform/augment.h"
#include "transform/output_spec.h"
#include "transform/random_streams.h"
#include "transform/sample_normalize.h"

namespace h5feed::cuda {
namespace {

// On the CUDA emulation (tests/support/cuda_emulation/) a block's 256 threads are host threads
// meeting at a barrier, about a millisecond for each __syncthreads on two cores: the emulated
// run takes small cases that reach the same branches of the kernels (rows at every 16-byte
// misalignment, padding rows and columns, partial row groups and tiles, rows wider than a
// block, enlarging and strong shrinking), one echo copy (the permuted one) per case, and the
// resize with antialias on or off for each type and layout rather than both.
using h5feed::testing::kEmulated;

// A device copy of a host vector, freed at scope end.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host, size_t padding = 0) : size_(host.size()) {
    Check(cudaMalloc(&data_, host.size() * sizeof(T) + padding + 1), "cudaMalloc");
    Check(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
          "cudaMemcpy");
  }
  explicit DeviceArray(size_t size) : size_(size) {
    Check(cudaMalloc(&data_, size * sizeof(T) + 1), "cudaMalloc");
    Check(cudaMemset(data_, 0xee, size * sizeof(T)), "cudaMemset");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return data_; }
  std::vector<T> ToHost() const {
    std::vector<T> host(size_);
    Check(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  T* data_ = nullptr;
  size_t size_;
};

std::vector<uint8_t> Pattern(size_t bytes, uint64_t seed) {
  transform::SplitMix64 rng(seed);
  std::vector<uint8_t> data(bytes);
  for (auto& byte : data) byte = static_cast<uint8_t>(rng.Next() >> 56);
  return data;
}

struct Run {
  std::vector<uint8_t> images;  // delivered
  std::vector<int64_t> labels;  // delivered
};

// Delivers copy `copy` of `rows` stored images through the kernel; `order` permutes rows.
Run OnDevice(const std::vector<uint8_t>& src, const ImageShape& shape, int64_t rows,
             const transform::OutputSpec& spec, const std::vector<int64_t>& indices,
             const std::vector<int64_t>& labels, const std::vector<int64_t>& order, int copy) {
  DeviceArray<uint8_t> images(src, 16);
  DeviceArray<int64_t> device_indices(indices);
  DeviceArray<int64_t> device_labels(labels);
  DeviceArray<int64_t> device_order(order);
  DeviceArray<uint8_t> out(static_cast<size_t>(rows * spec.image_bytes()));
  DeviceArray<int64_t> labels_out(static_cast<size_t>(rows));
  NormalizeLaunch launch;
  launch.images = images.get();
  launch.indices = device_indices.get();
  launch.order = device_order.get();
  launch.labels = device_labels.get();
  launch.labels_out = labels_out.get();
  launch.out = out.get();
  launch.rows = rows;
  launch.epoch = 3;
  launch.copy = copy;
  launch.height = shape.height;
  launch.width = shape.width;
  launch.channels = shape.channels;
  launch.spec = spec;
  LaunchNormalize(launch, nullptr);
  Check(cudaDeviceSynchronize(), "running the kernel");
  return {out.ToHost(), labels_out.ToHost()};
}

// The CPU arithmetic for the same delivery, sample by sample (pipeline::NormalizeBatch runs the
// same calls spread over its threads): rows permuted on the host, each sample's draws and
// pixels by transform/.
Run OnHost(const std::vector<uint8_t>& src, const ImageShape& shape, int64_t rows,
           const transform::OutputSpec& spec, const std::vector<int64_t>& indices,
           const std::vector<int64_t>& labels, const std::vector<int64_t>& order, int copy) {
  const auto bytes = static_cast<size_t>(shape.bytes());
  const auto out_bytes = static_cast<size_t>(spec.image_bytes());
  Run run;
  run.images.resize(static_cast<size_t>(rows) * out_bytes);
  for (size_t i = 0; i < static_cast<size_t>(rows); ++i) {
    const auto from = static_cast<size_t>(order[i]);
    const transform::SampleTransform t =
        transform::DrawTransform(spec.augment, 3, indices[from], copy);
    transform::NormalizeSampleRows(src.data() + from * bytes, shape, spec, t, 0,
                                   spec.augment.out_height, run.images.data() + i * out_bytes);
    run.labels.push_back(labels[from]);
  }
  return run;
}

// 0..rows-1 in an order of their own.
std::vector<int64_t> Shuffled(int64_t rows, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

// ImageNet's, and a fourth channel's for the 4-channel case.
constexpr std::array<float, 4> kMean = {0.485f, 0.456f, 0.406f, 0.5f};
constexpr std::array<float, 4> kStd = {0.229f, 0.224f, 0.225f, 0.25f};

void CompareWithCpu(const ImageShape& shape, int64_t rows, const OutputOptions& output) {
  const transform::OutputSpec spec =
      transform::MakeOutputSpec(transform::MakeNormalizeParams(kMean.data(), kStd.data(), 4,
                                                               static_cast<int>(shape.channels)),
                                shape, output, 42);
  const std::vector<uint8_t> src = Pattern(static_cast<size_t>(rows * shape.bytes()), 9);
  std::vector<int64_t> indices(static_cast<size_t>(rows));
  std::vector<int64_t> labels(static_cast<size_t>(rows));
  for (size_t i = 0; i < indices.size(); ++i) {
    indices[i] = 5000 + 3 * static_cast<int64_t>(i);
    labels[i] = static_cast<int64_t>(i % 10);
  }
  std::vector<int64_t> identity(static_cast<size_t>(rows));
  std::iota(identity.begin(), identity.end(), 0);
  for (int copy : {0, 1}) {
    if (kEmulated && copy == 0) continue;
    const std::vector<int64_t> order = copy == 0 ? identity : Shuffled(rows, 77);
    const Run device = OnDevice(src, shape, rows, spec, indices, labels, order, copy);
    const Run host = OnHost(src, shape, rows, spec, indices, labels, order, copy);
    CHECK(device.labels == host.labels);
    int64_t different = 0;
    for (size_t i = 0; i < host.images.size(); ++i) different += device.images[i] != host.images[i];
    CHECK(different == 0);
  }
}

TEST_CASE("the kernel equals the CPU path bit for bit for every type, layout and augmentation") {
  for (ElementType type : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kBFloat16}) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      CAPTURE(static_cast<int>(type));
      CAPTURE(static_cast<int>(layout));
      OutputOptions output;
      output.type = type;
      output.layout = layout;
      if (kEmulated) {
        CompareWithCpu({9, 7, 3}, 6, output);    // rows start at many 16-byte misalignments
        CompareWithCpu({2, 300, 1}, 1, output);  // rows wider than the block's 256 threads
        CompareWithCpu({17, 5, 1}, 2, output);
        output.augment.random_flip = true;
        output.augment.random_crop_padding = 4;
        CompareWithCpu({9, 7, 2}, 6, output);
        output.augment.center_crop_height = 6;
        output.augment.center_crop_width = 5;
        CompareWithCpu({9, 8, 3}, 3, output);
        output.augment.random_crop_padding = 7;  // whole rows and columns of padding
        CompareWithCpu({9, 8, 3}, 3, output);
        continue;
      }
      CompareWithCpu({9, 7, 3}, 13, output);  // rows start at every 16-byte misalignment
      CompareWithCpu({32, 32, 3}, 16, output);
      CompareWithCpu({224, 224, 3}, 3, output);
      CompareWithCpu({17, 5, 1}, 7, output);
      output.augment.random_flip = true;
      output.augment.random_crop_padding = 4;
      CompareWithCpu({32, 32, 3}, 64, output);
      CompareWithCpu({9, 7, 2}, 40, output);
      output.augment.center_crop_height = 24;
      output.augment.center_crop_width = 20;
      CompareWithCpu({32, 30, 3}, 16, output);
      output.augment.random_crop_padding = 30;  // whole rows and columns of padding
      CompareWithCpu({32, 30, 3}, 16, output);
    }
  }
}

TEST_CASE("the resize kernel equals the CPU path bit for bit for resized crops and resizes") {
  for (ElementType type : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kBFloat16}) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      for (bool antialias : {true, false}) {
        // Emulated: antialias on or off for each type and layout, alternately.
        if (kEmulated &&
            antialias != ((static_cast<int>(type) + static_cast<int>(layout)) % 2 == 0)) {
          continue;
        }
        CAPTURE(static_cast<int>(type));
        CAPTURE(static_cast<int>(layout));
        CAPTURE(antialias);
        OutputOptions output;
        output.type = type;
        output.layout = layout;
        AugmentOptions& augment = output.augment;
        augment.antialias = antialias;
        augment.random_flip = true;
        if (kEmulated) {
          augment.random_resized_crop.height = 40;  // non-square, partial tiles
          augment.random_resized_crop.width = 50;
          CompareWithCpu({61, 90, 3}, 2, output);
          CompareWithCpu({61, 90, 1}, 1, output);
          augment.random_resized_crop.height = 36;  // enlarging a small image 4-5x
          augment.random_resized_crop.width = 40;
          CompareWithCpu({8, 9, 3}, 1, output);
          augment.random_resized_crop.height = 12;  // shrinking 20-30x (and flips: 5 rows)
          augment.random_resized_crop.width = 9;
          CompareWithCpu({300, 280, 3}, 5, output);
          augment.random_resized_crop.scale_min = 1e-4;  // boxes of a pixel or two
          augment.random_resized_crop.scale_max = 2e-4;
          augment.random_resized_crop.height = 33;
          augment.random_resized_crop.width = 17;
          CompareWithCpu({64, 64, 3}, 2, output);
          augment.random_resized_crop = RandomResizedCropOptions{};
          augment.resize_shorter = 40;  // validation: Resize, then CenterCrop
          augment.center_crop_height = 37;
          augment.center_crop_width = 31;
          CompareWithCpu({30, 20, 4}, 2, output);
          continue;
        }
        augment.random_resized_crop.height = 224;  // ImageNet's: 256 stored, 224 delivered
        augment.random_resized_crop.width = 224;
        CompareWithCpu({256, 256, 3}, 6, output);
        augment.random_resized_crop.height = 40;  // non-square, partial tiles
        augment.random_resized_crop.width = 50;
        CompareWithCpu({61, 90, 3}, 9, output);
        CompareWithCpu({61, 90, 1}, 5, output);
        augment.random_resized_crop.height = 96;  // enlarging a small image 4-5x
        augment.random_resized_crop.width = 112;
        CompareWithCpu({20, 24, 3}, 8, output);
        augment.random_resized_crop.height = 12;  // shrinking 20-30x
        augment.random_resized_crop.width = 9;
        CompareWithCpu({300, 280, 3}, 4, output);
        augment.random_resized_crop.scale_min = 1e-4;  // boxes of a pixel or two
        augment.random_resized_crop.scale_max = 2e-4;
        augment.random_resized_crop.height = 33;
        augment.random_resized_crop.width = 17;
        CompareWithCpu({64, 64, 3}, 8, output);
        augment.random_resized_crop = RandomResizedCropOptions{};
        augment.resize_shorter = 256;  // validation: Resize(256), CenterCrop(224)
        augment.center_crop_height = 224;
        augment.center_crop_width = 224;
        CompareWithCpu({375, 500, 3}, 3, output);
        augment.resize_shorter = 40;
        augment.center_crop_height = 37;
        augment.center_crop_width = 31;
        CompareWithCpu({30, 20, 4}, 5, output);
      }
    }
  }
}

#if !defined(H5FEED_CUDA_EMULATION)  // CUDA's instructions: on a real device only
TEST_CASE("on the device, FloatToHalfBits and FloatToBFloat16Bits equal CUDA's conversions") {
  CHECK(testing::DeviceConversionMismatches() == 0);
}
#endif

// Delivered pixel values encode the stored position (value = 1 + y * 8 + x on an 8 x 8
// image, mean 0, std 1/255): from the output, each sample's flip and offsets can be read back.
struct Draw {
  bool flip;
  int oy;
  int ox;
};

std::vector<Draw> DrawsSeenOnDevice(int64_t rows, int copy, uint64_t seed) {
  const ImageShape shape{8, 8, 1};
  std::vector<uint8_t> src(static_cast<size_t>(rows * 64));
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(1 + i % 64);
  const float zero[1] = {0.0f};
  const float one[1] = {1.0f / 255};
  OutputOptions output;
  output.augment.random_flip = true;
  output.augment.random_crop_padding = 2;
  const transform::OutputSpec spec = transform::MakeOutputSpec(
      transform::MakeNormalizeParams(zero, one, 1, 1), shape, output, seed);
  std::vector<int64_t> rows_vector(static_cast<size_t>(rows));
  std::iota(rows_vector.begin(), rows_vector.end(), 0);
  const Run run = OnDevice(src, shape, rows, spec, rows_vector, rows_vector, rows_vector, copy);
  std::vector<Draw> draws;
  for (int64_t n = 0; n < rows; ++n) {
    std::vector<float> image(64);
    std::memcpy(image.data(), run.images.data() + n * 256, 256);
    // Row 3 is inside the window for every vertical offset in [-2, 2]; its columns 2..5 too.
    const long a = std::lround(image[3 * 8 + 2]);
    const long b = std::lround(image[3 * 8 + 3]);
    const int sy = static_cast<int>((a - 1) / 8);
    const int sx = static_cast<int>((a - 1) % 8);
    Draw draw;
    draw.flip = b < a;
    draw.oy = sy - 3 + 2;
    draw.ox = (draw.flip ? sx - (8 - 1 - 2) : sx - 2) + 2;
    draws.push_back(draw);
  }
  return draws;
}

TEST_CASE("on the device, half the samples flip and crop offsets are uniform over [0, 2P]") {
  // Emulated: too few rows for the statistics (the draws are the CPU path's, whose
  // distribution augment_test checks); what the device adds, reproducibility and fresh draws
  // per copy and seed, is checked.
  constexpr int64_t kRows = kEmulated ? 32 : 20000;
  const std::vector<Draw> draws = DrawsSeenOnDevice(kRows, 0, 5);
  int flips = 0;
  std::array<std::array<int, 5>, 5> joint{};
  for (const Draw& d : draws) {
    REQUIRE(d.oy >= 0);
    REQUIRE(d.oy <= 4);
    REQUIRE(d.ox >= 0);
    REQUIRE(d.ox <= 4);
    flips += d.flip;
    ++joint[static_cast<size_t>(d.oy)][static_cast<size_t>(d.ox)];
  }
  if (!kEmulated) {
    CHECK(std::abs(flips - kRows / 2) < 5 * 71);  // Binomial sd = 71
    // Chi-square over 25 cells, 24 degrees of freedom: the 99.99th percentile is about 59.
    double chi_square = 0;
    const double expected = kRows / 25.0;
    for (const auto& row : joint)
      for (int count : row) chi_square += (count - expected) * (count - expected) / expected;
    CHECK(chi_square < 59);
  }
  // Reproducible: the same draws again; another echo copy or seed draws anew.
  const std::vector<Draw> again = DrawsSeenOnDevice(kRows, 0, 5);
  const std::vector<Draw> other_copy = DrawsSeenOnDevice(kRows, 1, 5);
  const std::vector<Draw> other_seed = DrawsSeenOnDevice(kRows, 0, 6);
  int same = 0, same_copy = 0, same_seed = 0;
  for (size_t i = 0; i < draws.size(); ++i) {
    const auto equal = [](const Draw& x, const Draw& y) {
      return x.flip == y.flip && x.oy == y.oy && x.ox == y.ox;
    };
    same += equal(draws[i], again[i]);
    same_copy += equal(draws[i], other_copy[i]);
    same_seed += equal(draws[i], other_seed[i]);
  }
  CHECK(same == kRows);
  CHECK(same_copy < std::max<int64_t>(kRows / 20, 8));  // 1 in 50 by chance
  CHECK(same_seed < std::max<int64_t>(kRows / 20, 8));
}

}  // namespace
}  // namespace h5feed::cuda
