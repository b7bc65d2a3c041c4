#include "augment_binding.h"

#include <pybind11/stl.h>

#include <set>
#include <string>
#include <utility>

#include "h5feed/error.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

const std::set<std::string> kKeys = {
    "random_flip", "random_crop_padding", "center_crop", "resize_shorter",
    "random_resized_crop", "scale", "ratio", "antialias", "count", "max_output"};

template <typename T>
T Field(const py::dict& spec, const char* key) {
  if (!spec.contains(key)) {
    throw Error(ErrorCode::kInvalidArgument, std::string("augment spec without '") + key + "'");
  }
  return spec[key].cast<T>();
}

AugmentOptions ToOptions(const py::dict& spec) {
  for (const auto& item : spec) {
    const auto key = item.first.cast<std::string>();
    if (kKeys.count(key) == 0) {
      throw Error(ErrorCode::kInvalidArgument, "augment spec with unknown key '" + key + "'");
    }
  }
  AugmentOptions options;
  options.random_flip = Field<bool>(spec, "random_flip");
  options.random_crop_padding = Field<int64_t>(spec, "random_crop_padding");
  std::tie(options.center_crop_height, options.center_crop_width) =
      Field<std::pair<int64_t, int64_t>>(spec, "center_crop");
  options.resize_shorter = Field<int64_t>(spec, "resize_shorter");
  RandomResizedCropOptions& crop = options.random_resized_crop;
  std::tie(crop.height, crop.width) =
      Field<std::pair<int64_t, int64_t>>(spec, "random_resized_crop");
  std::tie(crop.scale_min, crop.scale_max) = Field<std::pair<double, double>>(spec, "scale");
  std::tie(crop.ratio_min, crop.ratio_max) = Field<std::pair<double, double>>(spec, "ratio");
  options.antialias = Field<bool>(spec, "antialias");
  options.count = Field<int>(spec, "count");
  std::tie(options.max_output_height, options.max_output_width) =
      Field<std::pair<int64_t, int64_t>>(spec, "max_output");
  return options;
}

}  // namespace

std::vector<AugmentOptions> AugmentSpecs(const py::list& specs) {
  std::vector<AugmentOptions> result;
  for (const auto& spec : specs) result.push_back(ToOptions(spec.cast<py::dict>()));
  return result;
}

}  // namespace h5feed::python
