#pragma once
// What form a batch's images are delivered in, and where: on the host (as stored, or normalized
// on the CPU), or on a CUDA device (copied on the loader's own stream and normalized there, the
// trainer's stream made to wait on an event, never the host). Both sides use the same per-pixel
// arithmetic (transform/normalize.h), so a GPU batch equals the CPU batch.

#include <cstdint>
#include <string_view>
#include <vector>

#include "h5feed/cuda_stream_view.h"

namespace h5feed {

enum class ElementType { kUint8, kInt64, kFloat32, kFloat16, kBFloat16 };

// Of normalized images. NHWC is torch's channels_last memory format. The reader uses it too
// for the order of a stored sample's bytes once read; how a file's image dataset is shaped on
// disk, which has shapes no batch is delivered in, is StoredLayout (stored_layout.h).
enum class Layout { kNCHW, kNHWC };

// "uint8", "int64", "float32", "float16", "bfloat16" (numpy's and torch's names).
std::string_view ToString(ElementType type) noexcept;
// The inverse of ToString, in any case. Throws Error(kInvalidArgument) listing the words.
ElementType ParseElementType(std::string_view text);
// "NCHW", "NHWC".
std::string_view ToString(Layout layout) noexcept;
// The inverse of ToString, in any case. Throws Error(kInvalidArgument) listing the words.
Layout ParseLayout(std::string_view text);

// torchvision's RandomResizedCrop(size=(height, width), scale, ratio): a crop whose area is a
// uniform fraction in [scale_min, scale_max] of the image's and whose aspect ratio (width /
// height) is log-uniform in [ratio_min, ratio_max] (up to 10 attempts, then the central crop
// with the ratio clamped), resized (bilinear) to height x width. Defined exactly in
// lib/transform/resized_crop.h and resize_taps.h.
struct RandomResizedCropOptions {
  int64_t height = 0;  // > 0 (both): on; the delivered images are then height x width
  int64_t width = 0;
  double scale_min = 0.08;
  double scale_max = 1.0;
  double ratio_min = 3.0 / 4.0;
  double ratio_max = 4.0 / 3.0;
};

// Per-sample augmentation of one view, applied while normalizing. Each sample's draws come
// from a counter-based generator keyed by (seed, epoch, dataset row, echo copy, view), so a
// run repeats exactly and does not depend on threads or on the device. Order (torchvision's):
// the crop (a center crop, possibly padded with zeros and cropped at random, CIFAR-style; or a
// random resized crop; or a resize then a center crop), then the flip; padding zeros are
// normalized like a 0 pixel (a mask's padding is OutputOptions::mask_fill). Defined exactly in
// lib/transform/augment.h.
struct AugmentOptions {
  bool random_flip = false;         // mirror left-right with probability 1/2
  int64_t random_crop_padding = 0;  // > 0: pad P zeros on every side, crop H x W at a random offset
  // > 0 (both): deliver the central crop of this size, of the stored image (at most its size)
  // or, with resize_shorter, of the resized image: torchvision's CenterCrop, offsets
  // (H - h) / 2 and (W - w) / 2 rounded to nearest, ties to even. The delivered images are
  // then h x w.
  int64_t center_crop_height = 0;
  int64_t center_crop_width = 0;
  // > 0: torchvision's Resize(resize_shorter): the image resized (bilinear) so its shorter
  // side has this length and the other side int(resize_shorter x long / short), before the
  // center crop; the validation half of the ImageNet recipe (Resize(256), CenterCrop(224)).
  int64_t resize_shorter = 0;
  RandomResizedCropOptions random_resized_crop;
  // For resize_shorter and random_resized_crop: filter with a triangle widened by the
  // reduction when shrinking (torchvision's antialias=True, PIL's bilinear); false: plain
  // bilinear, two taps per axis (torchvision's tensor default before 0.17).
  bool antialias = true;
  // Progressive resizing: the largest height and width Loader::SetOutputSize will set for this
  // view (buffers are sized for it at Open); 0: the size above, fixed.
  int64_t max_output_height = 0;
  int64_t max_output_width = 0;
  // In OutputOptions::views: how many views of each sample this spec makes, each with its own
  // draws (DINO's 6-10 local crops are one spec with count 6-10).
  int count = 1;

  bool any() const {
    return random_flip || random_crop_padding > 0 || center_crop_height > 0 ||
           center_crop_width > 0 || resize_shorter > 0 || random_resized_crop.height > 0 ||
           random_resized_crop.width > 0;
  }
};

struct OutputOptions {
  // Element type and layout of the delivered views (LoaderOptions::normalize): float32,
  // float16 or bfloat16, normalized with mean and std; or uint8, the views' pixels as they are
  // (cropped, resized and flipped, not normalized: for a trainer's own GPU transforms; host
  // batches only). NCHW or NHWC.
  ElementType type = ElementType::kFloat32;
  Layout layout = Layout::kNCHW;
  AugmentOptions augment;
  // Several views of each sample (SimCLR's two crops; DINO's 2 global and 6-10 local ones):
  // when not empty, these replace `augment`, and a batch holds every view of its samples, each
  // its own images tensor (Batch::views(), image_tensor(view)), in spec order, a spec's
  // `count` views one after another. All views of a sample are made from the one gathered
  // copy of its stored pixels (read and decompressed once). At most 16 views in all.
  std::vector<AugmentOptions> views;
  // The class id a segmentation mask's padding gets, in every view (random_crop_padding's
  // border; the image's padding stays a 0 pixel): 0, or 255 for Pascal VOC's and Cityscapes'
  // "ignore", so the padded area stays out of the loss (torchvision's segmentation references
  // pad masks with 255). A uint16 mask gets the same value. In [0, 255] (Open refuses another
  // value). Without a mask field, or without padding, nothing is padded and it changes nothing.
  int mask_fill = 0;
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
