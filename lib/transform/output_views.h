#pragma once
// Every view a loader delivers of each sample, and where each view's images lie in a host
// slot's output region (or a device output buffer): view v's images start at byte
// capacity x (the room per image of views 0 .. v-1), each view a contiguous batch tensor at its
// current size. The room per image is fixed at Open for the largest size the view may take
// (AugmentOptions::max_output_height/width), so Loader::SetOutputSize changes the delivered
// size between epochs without reallocating anything.
//
// Views come from OutputOptions::views, in order, each spec's `count` views one after
// another (view indices 0, 1, ... key their draws); without views, output.augment is view 0.
// A value type; thread-safe as any value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/image_shape.h"
#include "h5feed/option_names.h"
#include "h5feed/output_options.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"

namespace h5feed::transform {

struct OutputViews {
  static constexpr int kMaxViews = 16;

  std::vector<OutputSpec> views;    // at the current sizes
  std::vector<int64_t> room_bytes;  // per view: bytes per image at its largest size
  std::vector<int> spec_of_view;    // the index in OutputOptions::views (0 without)
  // A file of images at their own size: view v's crop, made as each sample is gathered into
  // its room of the slot's image (own_size_views.h). Empty for a file of one image size.
  std::vector<AugmentParams> gather_crops;
  // The value a mask's padding gets in every view (OutputOptions::mask_fill): the CPU path's
  // TransformMask and the GPU stage's mask kernel read it here.
  uint8_t mask_fill = 0;

  int count() const { return static_cast<int>(views.size()); }
  // Bytes per sample of all views at their largest sizes: what a slot holds per row.
  int64_t room_per_sample() const;
  // Where view `view` starts in an output region holding `capacity` samples.
  size_t offset(int view, int64_t capacity) const;
  // Whether delivering a batch again (an echo copy) needs it recomputed rather than copied
  // row by row: some view draws at random, or the region is not laid out one image of
  // room_bytes per sample (several views, or one smaller than its room).
  bool renormalize_copies() const;
};

// The view specs of `output`: output.views in order, or output.augment alone when it has none.
// SpecOf is spec `spec`'s options (0 <= spec < SpecCount), SpecName their path in messages
// ("output.augment", "output.views[1]").
int SpecCount(const OutputOptions& output);
const AugmentOptions& SpecOf(const OutputOptions& output, int spec);
AugmentOptions& SpecOf(OutputOptions& output, int spec);
std::string SpecName(const OutputOptions& output, int spec);

// The views `output` asks for, for images of `shape` normalized with `normalize`; output.mask_fill
// must be in [0, 255] (loader::CheckOptions refuses another value before). Throws what
// MakeViewSpec throws, naming the view spec's options as `names` spells them, and
// Error(kInvalidArgument) for a count below 1, more than kMaxViews views, or a max_output size
// below the view's size or set for a view whose size is the stored one.
OutputViews MakeOutputViews(const NormalizeParams& normalize, const ImageShape& shape,
                            const OutputOptions& output, uint64_t seed,
                            const OptionNames& names = {});

// `output` with the delivered size of view spec `spec` (the index in output.views; 0 for
// output.augment) set to height x width: the random resized crop's size, or the center crop's.
// Throws Error(kInvalidArgument) when the spec does not exist, delivers the stored size (no
// crop or resize to resize), or the size exceeds the spec's max_output size (or its size at
// Open when none is set).
// Errors name SetOutputSize and the options as `names` spells them.
OutputOptions WithOutputSize(const OutputOptions& output, int spec, int64_t height, int64_t width,
                             const OptionNames& names = {});

// Throws Error(kInvalidArgument) unless `resized` fits the room `opened` made for each view
// (same views, each no larger than its room), naming the max_output of `output`'s spec as
// `names` spells it.
void CheckFitsRoom(const OutputViews& opened, const OutputViews& resized,
                   const OutputOptions& output = {}, const OptionNames& names = {});

}  // namespace h5feed::transform
