#pragma once
// The views a loader delivers of a file of images at their own size (docs/format.md, version
// 2). A batch needs one size per view, so each view's crop (RandomResizedCrop, or Resize then
// CenterCrop) is made as a sample is gathered, from its stored bytes
// (pipeline/own_size_sample.h), at the view's size. What a slot then holds per sample is one
// image of all its views' crops: each view has a room there, its largest size
// (max_output_height/width, else its size at Open), the rooms placed on shelves in view order
// (a room to the right of the one before when it fits in the widest room's width and is no
// taller than that shelf, else on a new shelf below), and the view's crop lies at its room's
// top left, at the view's current size.
//
// Each delivered view is then a window of that image, flipped and normalized as for every file,
// so everything after the gather (CPU or GPU normalization, echo, the device copy) reads the
// slot as rows of one image shape, and a size changed between epochs (Loader::SetOutputSize)
// moves nothing: the rooms keep Open's places.
//
// A value type; thread-safe as any value.

#include <cstdint>
#include <optional>

#include "h5feed/image_shape.h"
#include "h5feed/option_names.h"
#include "h5feed/output_options.h"
#include "transform/normalize.h"
#include "transform/output_views.h"

namespace h5feed::transform {

// What a file's image sizes say of the sizes Resize(S) gives them (ResizedSize: the shorter
// side S, the longer int(S x long / short), which grows with long / short): its image of least
// width / height has the least resized width of any at every S, and its image of least
// height / width the least resized height. A center crop fits every image's resized size
// exactly when it fits those two.
struct ResizeExtremes {
  ImageShape narrowest;  // the least width / height (ties: the first)
  ImageShape flattest;   // the least height / width

  // Of the images `shape` of (at least one), taken in turn.
  void Add(const ImageShape& shape);
  // The largest center crop every image holds after Resize(`shorter`): the narrowest's resized
  // width and the flattest's resized height.
  void LargestCrop(int64_t shorter, int64_t& height, int64_t& width) const;
};

// The views `output` asks for of a file whose largest image is `largest` and whose images'
// `extremes` are known (nullopt: not known ahead): in the result, view v's spec is its window
// of the stacked image (kWindow at its room, the view's flip) and gather_crops[v] its crop
// (flip off; ForImage adapts it to each image). `opened`: null at Open; for a later run's
// sizes, the views of Open, whose rooms and places are kept.
//
// Throws Error(kInvalidArgument) naming the options to set for a view without a crop that
// gives one size (random_resized_crop, or resize_shorter with a center_crop) or with
// random_crop_padding, a center crop that some image's resized size may not hold (with
// `extremes`, one larger than LargestCrop; without, one larger than S x S, all that an image of
// unknown size is sure to hold after Resize(S)), a view larger than its room (a later size),
// and what MakeOutputViews throws.
OutputViews MakeOwnSizeViews(const NormalizeParams& normalize, const ImageShape& largest,
                             const std::optional<ResizeExtremes>& extremes,
                             const OutputOptions& output, uint64_t seed,
                             const OptionNames& names = {}, const OutputViews* opened = nullptr);

// The image a slot holds per sample for `views` (MakeOwnSizeViews): every room.
ImageShape StackedShape(const OutputViews& views);

// Where view `view`'s crop starts in a sample's stacked image at `sample`, and the bytes from
// one of the image's rows to the next.
uint8_t* PlaceOf(const OutputViews& views, int view, uint8_t* sample);
int64_t StackedRowStride(const OutputViews& views);

}  // namespace h5feed::transform
