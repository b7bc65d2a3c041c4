#include "sources/coco_source.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/option_names.h"
#include "make_error.h"
#include "sources/coco_annotations.h"
#include "sources/placed_fields.h"

namespace h5feed::converters {
namespace {

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class CocoSource final : public SampleSource {
 public:
  CocoSource(CocoAnnotations coco, std::string images_root, std::string annotations_path,
             std::unique_ptr<FittedImages> images, ImageShape shape, OptionNames option_names)
      : coco_(std::move(coco)),
        images_root_(std::move(images_root)),
        annotations_path_(std::move(annotations_path)),
        images_(std::move(images)),
        shape_(shape),
        option_names_(std::move(option_names)) {}

  std::string_view kind() const override { return "coco"; }
  int64_t count() const override { return static_cast<int64_t>(coco_.images.size()); }
  ImageShape shape() const override { return shape_; }
  std::vector<std::string> classes() const override { return {}; }
  bool labelled() const override { return false; }
  bool own_size() const override { return images_->own_size(); }
  int64_t max_side() const override { return images_->max_side(); }
  MemoryBudget* memory_budget() const override { return &images_->budget(); }
  std::string name(int64_t i) const override {
    return coco_.images[static_cast<size_t>(i)].file_name;
  }

  std::vector<FieldSpec> fields() const override {
    return {{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}},
            {"box_labels", FieldKind::kBoxLabels, FieldType::kInt64, {}, "boxes"},
            {"iscrowd", FieldKind::kBoxValues, FieldType::kInt64, {}, "boxes"},
            {"area", FieldKind::kBoxValues, FieldType::kFloat64, {}, "boxes"}};
  }

  // COCO's bbox is in the image's pixels: boxes within its top-left pixel are a one-pixel
  // object at the origin, not boxes normalized to 0-1.
  BoxCoordinates box_coordinates() const override { return BoxCoordinates::kPixels; }

  BoxClasses box_classes() const override {
    BoxClasses classes;
    for (const CocoCategory& category : coco_.categories) {
      classes.names.push_back(category.name);
      classes.source_ids.push_back(category.id);
    }
    return classes;
  }

  std::vector<std::string> notes() const override {
    std::vector<std::string> notes;
    if (coco_.crowd_dropped > 0) {
      notes.push_back(
          fmt::format("{} crowd annotation(s) (iscrowd 1) of {} dropped, as "
                      "torchvision's detection references drop them; {} keeps them",
                      coco_.crowd_dropped, annotations_path_,
                      NameOption(option_names_, "CocoOptions", "keep_crowd")));
    }
    if (coco_.repeated_files > 0) {
      notes.push_back(
          fmt::format("{} image(s) of {} name a file another image id also names (e.g. {}): "
                      "each id is a sample of its own, with its own annotations' boxes",
                      coco_.repeated_files, annotations_path_, coco_.repeated_file));
    }
    if (coco_.empty_dropped > 0) {
      notes.push_back(
          fmt::format("{} box(es) of {} with no width or height inside their image "
                      "dropped",
                      coco_.empty_dropped, annotations_path_));
    }
    return notes;
  }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    const CocoImage& image = coco_.images[static_cast<size_t>(i)];
    const std::string path = images_root_ + "/" + image.file_name;
    const image::Size source = images_->ReadSize(path);
    if (source.height != image.height || source.width != image.width) {
      throw MakeError(ErrorCode::kCorrupt,
                      "the image is {}x{} (HxW) but {} says {}x{} for image id {}: its boxes "
                      "would be placed in other pixels",
                      source.height, source.width, annotations_path_, image.height, image.width,
                      image.id);
    }
    const image::Size stored = images_->Read(path, dest);
    std::vector<std::vector<uint8_t>> values = {Bytes(image.boxes), Bytes(image.labels),
                                                Bytes(image.iscrowd), Bytes(image.area)};
    PlaceGeometricFields(image.file_name, fields(), source, stored, images_->mode(),
                         images_->mask_fill(), values, box_coordinates());
    return {0, image.file_name, std::move(values)};
  }

 private:
  CocoAnnotations coco_;
  std::string images_root_;
  std::string annotations_path_;
  std::unique_ptr<FittedImages> images_;
  ImageShape shape_;
  OptionNames option_names_;  // the front end's name for keep_crowd, in the note
};

// Throws Error(kNotFound) when none of a spread of the JSON's images is in `images_root`: the
// JSON of one split with the folder of another (instances_val2017.json with train2017/), or
// the folder above the images, which would otherwise skip every image with a warning each.
void CheckImagesAreThere(const CocoAnnotations& coco, const std::string& images_root,
                         const std::string& annotations_path) {
  constexpr size_t kProbes = 32;
  const size_t count = coco.images.size();
  const size_t step = std::max<size_t>(1, count / kProbes);
  std::error_code error;
  for (size_t i = 0; i < count; i += step) {
    if (std::filesystem::exists(images_root + "/" + coco.images[i].file_name, error)) return;
  }
  throw MakeError(ErrorCode::kNotFound,
                  "none of the {} images of {} looked for is in {} (e.g. {}/{}): give the "
                  "folder its file_name entries are in, of the JSON's own split",
                  (count + step - 1) / step, annotations_path, images_root, images_root,
                  coco.images.front().file_name);
}

}  // namespace

std::unique_ptr<SampleSource> OpenCoco(const std::string& annotations_path,
                                       const std::string& images_root, const CocoOptions& options) {
  auto images = std::make_unique<FittedImages>(options.fit);
  CocoAnnotations coco = ReadCocoAnnotations(annotations_path, options.keep_crowd);
  if (coco.images.empty() || coco.categories.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} lists {} images and {} categories: nothing "
                    "to convert",
                    annotations_path, coco.images.size(), coco.categories.size());
  }
  CheckImagesAreThere(coco, images_root, annotations_path);
  std::vector<image::Size> sizes;
  for (const CocoImage& image : coco.images) sizes.push_back({image.height, image.width});
  const ImageShape shape = images->Shape(sizes, annotations_path);
  return std::make_unique<CocoSource>(std::move(coco), images_root, annotations_path,
                                      std::move(images), shape, options.fit.option_names);
}

}  // namespace h5feed::converters
