// `--augment SPEC` of h5feed bench and bench sweep (tools/bench/augment_spec.h): each item
// sets its option, sizes take one side or HxW, and anything else is refused naming it.
#include "bench/augment_spec.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"

namespace h5feed::bench {
namespace {

TEST_CASE("the ImageNet training and validation recipes parse to their options") {
  const AugmentOptions train = ParseAugmentSpec("rrc=224,flip");
  CHECK(train.random_resized_crop.height == 224);
  CHECK(train.random_resized_crop.width == 224);
  CHECK(train.random_resized_crop.scale_min == 0.08);
  CHECK(train.random_flip);
  CHECK(train.antialias);
  const AugmentOptions validation = ParseAugmentSpec("resize=256,center=224x200,no-antialias");
  CHECK(validation.resize_shorter == 256);
  CHECK(validation.center_crop_height == 224);
  CHECK(validation.center_crop_width == 200);
  CHECK_FALSE(validation.antialias);
  const AugmentOptions local = ParseAugmentSpec("rrc=96x64,scale=0.05:0.4,ratio=0.5:2");
  CHECK(local.random_resized_crop.width == 64);
  CHECK(local.random_resized_crop.scale_max == 0.4);
  CHECK(local.random_resized_crop.ratio_min == 0.5);
  CHECK(ParseAugmentSpec("pad=4,flip").random_crop_padding == 4);
}

TEST_CASE("a spec item that is not one is refused, naming it") {
  for (const std::string spec :
       {"flop", "rrc", "rrc=0", "rrc=22x", "scale=0.5", "flip=1", "pad=-1", "resize=abc"}) {
    CAPTURE(spec);
    CHECK_THROWS_AS(ParseAugmentSpec(spec), Error);
    CHECK(AugmentSpecProblem(spec).find(spec.substr(0, spec.find('='))) != std::string::npos);
  }
  CHECK(AugmentSpecProblem("rrc=224,flip").empty());
}

TEST_CASE("a range of scales or ratios out of order or not above 0 is refused while parsing") {
  for (const std::string spec : {"scale=0.9:0.1", "scale=0:1", "ratio=2:0.5", "ratio=-1:1"}) {
    CAPTURE(spec);
    CHECK(AugmentSpecProblem("rrc=224," + spec).find("'" + spec + "' needs 0 < MIN <= MAX") !=
          std::string::npos);
  }
  CHECK(AugmentSpecProblem("rrc=224,scale=0.5:0.5,ratio=1:1").empty());  // one value: allowed
}

}  // namespace
}  // namespace h5feed::bench
