#pragma once
// What form a batch's images are delivered in, and where: on the host (as stored, or normalized
// on the CPU), or on a CUDA device (copied on the loader's own stream and normalized there, the
// trainer's stream made to wait on an event, never the host). Both sides use the same per-pixel
// arithmetic (pipeline/normalize.h), so a GPU batch equals the CPU batch.

#include <cstdint>

namespace h5feed {

enum class ElementType { kUint8, kInt64, kFloat32, kFloat16, kBFloat16 };

// Of normalized images. NHWC is torch's channels_last memory format.
enum class Layout { kNCHW, kNHWC };

// Per-sample augmentation, applied while normalizing. Each sample's draws come from a
// counter-based generator keyed by (seed, epoch, dataset row, echo copy), so a run repeats
// exactly and does not depend on threads or on the device.
struct AugmentOptions {
  bool random_flip = false;         // mirror left-right with probability 1/2
  int64_t random_crop_padding = 0;  // > 0: pad P zeros on every side, crop H x W at a random offset
  int64_t center_crop_height = 0;   // > 0 (both): deliver the central crop of this size
  int64_t center_crop_width = 0;

  bool any() const {
    return random_flip || random_crop_padding > 0 || center_crop_height > 0 ||
           center_crop_width > 0;
  }
};

struct OutputOptions {
  // Element type and layout of normalized images (LoaderOptions::normalize): float32, float16
  // or bfloat16; NCHW or NHWC.
  ElementType type = ElementType::kFloat32;
  Layout layout = Layout::kNCHW;
  AugmentOptions augment;
  // -1: host batches. >= 0: the GPU stage on that CUDA device. When no device is usable (no
  // GPU, no driver, a build without nvcc) the loader says so once and delivers host batches.
  int cuda_device = -1;
  // The trainer's cudaStream_t (nullptr: the legacy default stream). A device batch is ready on
  // this stream when Next returns it; its buffers are reused only once this stream has passed
  // the point where the trainer released the batch.
  void* cuda_stream = nullptr;
};

}  // namespace h5feed
