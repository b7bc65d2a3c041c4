#pragma once
// The augmentation `h5feed bench --augment SPEC` (and `bench sweep --augment`) applies: a
// comma-separated list, the ImageNet training recipe being "rrc=224,flip":
//
//   rrc=H[xW]       random resized crop to H x W (torchvision's RandomResizedCrop)
//   scale=MIN:MAX   its area fractions (default 0.08:1)
//   ratio=MIN:MAX   its aspect ratios, width / height (default 0.75:1.3333)
//   resize=S        the shorter side resized to S first (torchvision's Resize(S))
//   center=H[xW]    center crop to H x W (of the resized image with resize=)
//   pad=P           zero padding P, then a random crop to the size (CIFAR's RandomCrop)
//   flip            random horizontal flip
//   no-antialias    plain bilinear resizing (antialias is on by default)
//
// The loader then normalizes (float32 NCHW, ImageNet's mean and std).

#include <string>

#include "h5feed/output_options.h"

namespace h5feed::bench {

// Throws Error(kInvalidArgument) naming the item it cannot read, or a range not 0 < MIN <= MAX.
// The options are checked against the file when the loader opens (MakeViewSpec's errors).
AugmentOptions ParseAugmentSpec(const std::string& spec);

// "" when `spec` parses, else what is wrong with it: a command-line validator's answer.
std::string AugmentSpecProblem(const std::string& spec);

}  // namespace h5feed::bench
