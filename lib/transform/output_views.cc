#include "transform/output_views.h"

#include <algorithm>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {
namespace {

template <typename... Args>
[[noreturn]] void Reject(fmt::format_string<Args...> format, Args&&... args) {
  throw MakeError(ErrorCode::kInvalidArgument, format, std::forward<Args>(args)...);
}

// Bytes per image of `spec` at the larger of its size and its spec's max_output size.
int64_t RoomBytes(const OutputSpec& spec, const AugmentOptions& augment, const std::string& name,
                  const OptionNames& names) {
  const std::string max_output = NameOption(names, "LoaderOptions", name + ".max_output");
  const bool max_set = augment.max_output_height > 0 || augment.max_output_width > 0;
  if (!max_set) return spec.image_bytes();
  if (augment.random_resized_crop.height == 0 && augment.center_crop_height == 0) {
    Reject(
        "{} is set, but this view has no random resized crop or center crop, whose size is what "
        "{} changes",
        max_output, NameMethod(names, "Loader", "SetOutputSize"));
  }
  if (augment.max_output_height < spec.augment.out_height ||
      augment.max_output_width < spec.augment.out_width) {
    Reject("{} is {}x{}, smaller than the view's size {}x{}; set both at least that large",
           max_output, augment.max_output_height, augment.max_output_width, spec.augment.out_height,
           spec.augment.out_width);
  }
  OutputSpec largest = spec;
  largest.augment.out_height = static_cast<int32_t>(augment.max_output_height);
  largest.augment.out_width = static_cast<int32_t>(augment.max_output_width);
  return largest.image_bytes();
}

}  // namespace

int SpecCount(const OutputOptions& output) {
  return output.views.empty() ? 1 : static_cast<int>(output.views.size());
}

const AugmentOptions& SpecOf(const OutputOptions& output, int spec) {
  return output.views.empty() ? output.augment : output.views[static_cast<size_t>(spec)];
}

AugmentOptions& SpecOf(OutputOptions& output, int spec) {
  return output.views.empty() ? output.augment : output.views[static_cast<size_t>(spec)];
}

std::string SpecName(const OutputOptions& output, int spec) {
  return output.views.empty() ? "output.augment" : "output.views[" + std::to_string(spec) + "]";
}

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
                            const OutputOptions& output, uint64_t seed, const OptionNames& names) {
  OutputViews result;
  result.mask_fill = static_cast<uint8_t>(output.mask_fill);  // in [0, 255]: see the header
  const bool several = !output.views.empty();
  for (int s = 0; s < SpecCount(output); ++s) {
    const AugmentOptions& augment = SpecOf(output, s);
    const std::string name = SpecName(output, s);
    if (several && (augment.count < 1 || augment.count > OutputViews::kMaxViews)) {
      Reject("{} is {}; it must be in [1, {}]", NameOption(names, "LoaderOptions", name + ".count"),
             augment.count, OutputViews::kMaxViews);
    }
    const int count = several ? augment.count : 1;
    for (int c = 0; c < count; ++c) {
      const int view = result.count();
      if (view >= OutputViews::kMaxViews) {
        Reject("{} ask for more than {} views of each sample",
               NameOption(names, "LoaderOptions", "output.views"), OutputViews::kMaxViews);
      }
      result.views.push_back(
          MakeViewSpec(normalize, shape, augment, output, seed, view, name, names));
      result.room_bytes.push_back(RoomBytes(result.views.back(), augment, name, names));
      result.spec_of_view.push_back(s);
    }
  }
  return result;
}

OutputOptions WithOutputSize(const OutputOptions& output, int spec, int64_t height, int64_t width,
                             const OptionNames& names) {
  const std::string method = NameMethod(names, "Loader", "SetOutputSize");
  if (spec < 0 || spec >= SpecCount(output)) {
    Reject("{}: view spec {} does not exist (the loader has {})", method, spec, SpecCount(output));
  }
  if (height < 1 || width < 1) {
    Reject("{}: {}x{}; both sides must be at least 1", method, height, width);
  }
  OutputOptions resized = output;
  AugmentOptions& augment = SpecOf(resized, spec);
  // Checked here, naming the method: the views made from `resized` would otherwise be refused
  // as options given at Open ("max_output ... set both at least that large"), which the caller
  // of SetOutputSize cannot change.
  const bool max_set = augment.max_output_height > 0 || augment.max_output_width > 0;
  if (max_set && (height > augment.max_output_height || width > augment.max_output_width)) {
    const std::string max_output =
        NameOption(names, "LoaderOptions", SpecName(output, spec) + ".max_output");
    Reject(
        "{}: {}x{} is beyond the largest size the loader made room for at Open: {} is {}x{}; "
        "ask for at most that, or open the loader with {} at least {}x{}",
        method, height, width, max_output, augment.max_output_height, augment.max_output_width,
        max_output, height, width);
  }
  if (augment.random_resized_crop.height > 0) {
    augment.random_resized_crop.height = height;
    augment.random_resized_crop.width = width;
  } else if (augment.center_crop_height > 0) {
    augment.center_crop_height = height;
    augment.center_crop_width = width;
  } else {
    Reject(
        "{}: {} delivers {} without a crop; the size it sets is a random resized crop's or a "
        "center crop's",
        method, NameOption(names, "LoaderOptions", SpecName(output, spec)),
        (augment.resize_shorter > 0 ? "the resized image" : "the stored size"));
  }
  return resized;
}

void CheckFitsRoom(const OutputViews& opened, const OutputViews& resized,
                   const OutputOptions& output, const OptionNames& names) {
  for (int v = 0; v < resized.count() && v < opened.count(); ++v) {
    const OutputSpec& spec = resized.views[static_cast<size_t>(v)];
    if (spec.image_bytes() > opened.room_bytes[static_cast<size_t>(v)]) {
      const int spec_index = resized.spec_of_view[static_cast<size_t>(v)];
      Reject(
          "{}: {}x{} is larger than the loader made room for at Open (view spec {}); open it "
          "with {} at least that large",
          NameMethod(names, "Loader", "SetOutputSize"), spec.augment.out_height,
          spec.augment.out_width, spec_index,
          NameOption(names, "LoaderOptions", SpecName(output, spec_index) + ".max_output"));
    }
  }
  if (resized.count() != opened.count()) {
    throw Error(ErrorCode::kInternal, "SetOutputSize changed the number of views");
  }
}

}  // namespace h5feed::transform
