#pragma once
// What form a batch's images are delivered in, and where: on the host (as stored, or normalized
// on the CPU), or on a CUDA device (copied on the loader's own stream and normalized there, the
// trainer's stream made to wait on an event, never the host). Both sides use the same per-pixel
// arithmetic (transform/normalize.h), so a GPU batch equals the CPU batch.

#include <cstdint>

#include "h5feed/cuda_stream_view.h"

namespace h5feed {

enum class ElementType { kUint8, kInt64, kFloat32, kFloat16, kBFloat16 };

// Of normalized images. NHWC is torch's channels_last memory format.
enum class Layout { kNCHW, kNHWC };

// Per-sample augmentation, applied while normalizing. Each sample's draws come from a
// counter-based generator keyed by (seed, epoch, dataset row, echo copy), so a run repeats
// exactly and does not depend on threads or on the device. Order (torchvision's): the center
// crop window, then the random crop of that window padded with zeros, then the flip; padding
// zeros are normalized like a 0 pixel. Defined exactly in lib/transform/augment.h.
struct AugmentOptions {
  bool random_flip = false;         // mirror left-right with probability 1/2
  int64_t random_crop_padding = 0;  // > 0: pad P zeros on every side, crop H x W at a random offset
  // > 0 (both, at most the image size): deliver the central crop of this size, its offsets
  // (H - h) / 2 and (W - w) / 2 rounded down. The delivered images are then h x w.
  int64_t center_crop_height = 0;
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
  // -1: host batches. >= 0: the GPU stage on that CUDA device (docs/gpu.md; needs
  // normalize = true). When no device is usable (no GPU, no driver, a build without nvcc) the
  // loader says so once (on_warning) and delivers host batches with the same values; an index
  // past the visible devices is an error. The device holds max(2, slots) delivered batches.
  int cuda_device = -1;
  // The trainer's stream (a cudaStream_t converts to it; the default view is the legacy
  // default stream; a program built with per-thread default streams passes
  // cudaStreamPerThread). A device batch is ready on this stream when Next returns it; its
  // buffers are reused only once this stream has passed the point where the trainer released
  // the batch (destroyed its last Batch copy).
  CudaStreamView cuda_stream;
};

}  // namespace h5feed
