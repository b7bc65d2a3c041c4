#include "bench/augment_spec.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::bench {
namespace {

[[noreturn]] void Reject(const std::string& item, const std::string& why) {
  // No "--augment:" here: the command line puts the flag's name before a validator's message.
  throw MakeError(
      ErrorCode::kInvalidArgument,
      "'{}' {} (items: rrc=H[xW], scale=MIN:MAX, ratio=MIN:MAX, resize=S, center=H[xW], pad=P, "
      "flip, no-antialias; for example rrc=224,flip)",
      item, why);
}

int64_t WholeNumber(const std::string& item, const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > (1 << 16)) {
    Reject(item, "needs a whole number from 1 to 65536");
  }
  return value;
}

double Number(const std::string& item, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') Reject(item, "needs numbers");
  return value;
}

// "H" or "HxW".
void Size(const std::string& item, const std::string& text, int64_t& height, int64_t& width) {
  const size_t x = text.find('x');
  height = WholeNumber(item, text.substr(0, x));
  width = x == std::string::npos ? height : WholeNumber(item, text.substr(x + 1));
}

// "MIN:MAX", 0 < MIN <= MAX: the order the loader requires of both ranges (area fractions,
// aspect ratios), checked here so that a range given the wrong way round is a wrong command
// line, refused before any file is opened.
void Range(const std::string& item, const std::string& text, double& low, double& high) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) Reject(item, "needs MIN:MAX");
  low = Number(item, text.substr(0, colon));
  high = Number(item, text.substr(colon + 1));
  if (!(low > 0 && low <= high && std::isfinite(high))) Reject(item, "needs 0 < MIN <= MAX");
}

}  // namespace

AugmentOptions ParseAugmentSpec(const std::string& spec) {
  AugmentOptions augment;
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t equals = item.find('=');
    const std::string key = item.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : item.substr(equals + 1);
    const bool has_value = equals != std::string::npos;
    RandomResizedCropOptions& crop = augment.random_resized_crop;
    if (key == "flip" && !has_value) {
      augment.random_flip = true;
    } else if (key == "no-antialias" && !has_value) {
      augment.antialias = false;
    } else if (key == "rrc" && has_value) {
      Size(item, value, crop.height, crop.width);
    } else if (key == "scale" && has_value) {
      Range(item, value, crop.scale_min, crop.scale_max);
    } else if (key == "ratio" && has_value) {
      Range(item, value, crop.ratio_min, crop.ratio_max);
    } else if (key == "resize" && has_value) {
      augment.resize_shorter = WholeNumber(item, value);
    } else if (key == "center" && has_value) {
      Size(item, value, augment.center_crop_height, augment.center_crop_width);
    } else if (key == "pad" && has_value) {
      augment.random_crop_padding = WholeNumber(item, value);
    } else {
      Reject(item, "is not an augmentation item");
    }
  }
  return augment;
}

std::string AugmentSpecProblem(const std::string& spec) {
  try {
    ParseAugmentSpec(spec);
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace h5feed::bench
