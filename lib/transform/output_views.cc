#include "transform/output_views.h"

#include <algorithm>
#include <string>

#include "h5feed/error.h"

namespace h5feed::transform {
namespace {

std::string SpecName(const OutputOptions& output, int spec) {
  return output.views.empty() ? "output.augment" : "output.views[" + std::to_string(spec) + "]";
}

[[noreturn]] void Reject(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

// Bytes per image of `spec` at the larger of its size and its spec's max_output size.
int64_t RoomBytes(const OutputSpec& spec, const AugmentOptions& augment, const std::string& name) {
  const bool max_set = augment.max_output_height > 0 || augment.max_output_width > 0;
  if (!max_set) return spec.image_bytes();
  if (augment.random_resized_crop.height == 0 && augment.center_crop_height == 0) {
    Reject("LoaderOptions." + name +
           ".max_output_height/width is set, but this view has no "
           "random resized crop or center crop, whose size is what SetOutputSize changes");
  }
  if (augment.max_output_height < spec.augment.out_height ||
      augment.max_output_width < spec.augment.out_width) {
    Reject("LoaderOptions." + name + ".max_output is " + std::to_string(augment.max_output_height) +
           "x" + std::to_string(augment.max_output_width) + ", smaller than the view's size " +
           std::to_string(spec.augment.out_height) + "x" + std::to_string(spec.augment.out_width) +
           "; set both at least that large");
  }
  OutputSpec largest = spec;
  largest.augment.out_height = static_cast<int32_t>(augment.max_output_height);
  largest.augment.out_width = static_cast<int32_t>(augment.max_output_width);
  return largest.image_bytes();
}

}  // namespace

int64_t OutputViews::room_per_sample() const {
  int64_t bytes = 0;
  for (int64_t room : room_bytes) bytes += room;
  return bytes;
}

size_t OutputViews::offset(int view, int64_t capacity) const {
  int64_t before = 0;
  for (int v = 0; v < view; ++v) before += room_bytes[static_cast<size_t>(v)];
  return static_cast<size_t>(before * capacity);
}

bool OutputViews::renormalize_copies() const {
  if (views.size() != 1) return true;
  return views[0].augment.random() || views[0].image_bytes() != room_bytes[0];
}

OutputViews MakeOutputViews(const NormalizeParams& normalize, const ImageShape& shape,
                            const OutputOptions& output, uint64_t seed) {
  OutputViews result;
  const bool several = !output.views.empty();
  const std::vector<AugmentOptions> specs =
      several ? output.views : std::vector<AugmentOptions>{output.augment};
  for (size_t s = 0; s < specs.size(); ++s) {
    const AugmentOptions& augment = specs[s];
    const std::string name = SpecName(output, static_cast<int>(s));
    if (several && (augment.count < 1 || augment.count > OutputViews::kMaxViews)) {
      Reject("LoaderOptions." + name + ".count is " + std::to_string(augment.count) +
             "; it must be in [1, " + std::to_string(OutputViews::kMaxViews) + "]");
    }
    const int count = several ? augment.count : 1;
    for (int c = 0; c < count; ++c) {
      const int view = result.count();
      if (view >= OutputViews::kMaxViews) {
        Reject("LoaderOptions.output.views ask for more than " +
               std::to_string(OutputViews::kMaxViews) + " views of each sample");
      }
      result.views.push_back(MakeViewSpec(normalize, shape, augment, output, seed, view, name));
      result.room_bytes.push_back(RoomBytes(result.views.back(), augment, name));
      result.spec_of_view.push_back(static_cast<int>(s));
    }
  }
  return result;
}

OutputOptions WithOutputSize(const OutputOptions& output, int spec, int64_t height, int64_t width) {
  const size_t specs = output.views.empty() ? 1 : output.views.size();
  if (spec < 0 || static_cast<size_t>(spec) >= specs) {
    Reject("SetOutputSize: view spec " + std::to_string(spec) +
           " does not exist (the loader "
           "has " +
           std::to_string(specs) + ")");
  }
  if (height < 1 || width < 1) {
    Reject("SetOutputSize: " + std::to_string(height) + "x" + std::to_string(width) +
           "; both sides must be at least 1");
  }
  OutputOptions resized = output;
  AugmentOptions& augment =
      output.views.empty() ? resized.augment : resized.views[static_cast<size_t>(spec)];
  if (augment.random_resized_crop.height > 0) {
    augment.random_resized_crop.height = height;
    augment.random_resized_crop.width = width;
  } else if (augment.center_crop_height > 0) {
    augment.center_crop_height = height;
    augment.center_crop_width = width;
  } else {
    Reject("SetOutputSize: " + SpecName(output, spec) + " delivers " +
           (augment.resize_shorter > 0 ? "the resized image" : "the stored size") +
           " without a crop; the size it sets is a random resized crop's or a center crop's");
  }
  return resized;
}

void CheckFitsRoom(const OutputViews& opened, const OutputViews& resized) {
  for (int v = 0; v < resized.count() && v < opened.count(); ++v) {
    const OutputSpec& spec = resized.views[static_cast<size_t>(v)];
    if (spec.image_bytes() > opened.room_bytes[static_cast<size_t>(v)]) {
      Reject("SetOutputSize: " + std::to_string(spec.augment.out_height) + "x" +
             std::to_string(spec.augment.out_width) +
             " is larger than the loader made room "
             "for at Open (view spec " +
             std::to_string(resized.spec_of_view[static_cast<size_t>(v)]) +
             "); open it with max_output_height and max_output_width (Python: Augment's "
             "max_size) at least that large");
    }
  }
  if (resized.count() != opened.count()) {
    throw Error(ErrorCode::kInternal, "SetOutputSize changed the number of views");
  }
}

}  // namespace h5feed::transform
