#include "sources/coco_annotations.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "h5feed/error.h"
#include "make_error.h"
#include "sources/json_without_key.h"

namespace h5feed::converters {
namespace {

using Json = nlohmann::json;

// `object`[key], which must be there and of the type `check` accepts; else Error(kCorrupt)
// naming the file, `what` (e.g. "annotation 12") and the member.
template <typename Check>
const Json& Member(const Json& object, const char* key, Check check, const std::string& path,
                   const std::string& what, const char* expected) {
  const auto found = object.find(key);
  if (found == object.end()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{}: {} has no \"{}\" of {}; is it a COCO instances "
                    "JSON (cocodataset.org/#format-data)?",
                    path, what, key, expected);
  }
  if (!check(*found)) {
    std::string value = found->dump();
    if (value.size() > 40) value = value.substr(0, 40) + "...";
    throw MakeError(ErrorCode::kCorrupt, "{}: {} has \"{}\": {}, not {}", path, what, key, value,
                    expected);
  }
  return *found;
}

// An integer, or a number of an integer's value (640.0: JSON written from numpy floats, which
// pycocotools reads as the integer), within int64.
bool IsInteger(const Json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>() <= uint64_t{INT64_MAX};
  if (j.is_number_integer()) return true;
  if (!j.is_number_float()) return false;
  const double value = j.get<double>();
  return std::trunc(value) == value && std::abs(value) < 0x1p63;
}

int64_t Integer(const Json& j) {
  return j.is_number_float() ? static_cast<int64_t>(j.get<double>()) : j.get<int64_t>();
}

// An image side: an integer of 1 to INT_MAX pixels.
bool IsSide(const Json& j) {
  return IsInteger(j) && Integer(j) >= 1 && Integer(j) <= std::numeric_limits<int>::max();
}
bool IsString(const Json& j) { return j.is_string(); }
bool IsArray(const Json& j) { return j.is_array(); }
bool IsBox(const Json& j) {
  return j.is_array() && j.size() == 4 &&
         std::all_of(j.begin(), j.end(), [](const Json& v) { return v.is_number(); });
}

std::vector<CocoCategory> Categories(const Json& root, const std::string& path) {
  std::vector<CocoCategory> categories;
  for (const Json& c : Member(root, "categories", IsArray, path, "the file", "categories")) {
    const std::string what = "a category";
    CocoCategory category{Integer(Member(c, "id", IsInteger, path, what, "an integer")),
                          Member(c, "name", IsString, path, what, "text").get<std::string>()};
    // The file stores the names as HDF5 variable-length strings, which end at their first
    // NUL: stored, the name would be read back (by h5py, inspect, the loader) cut there.
    if (const size_t nul = category.name.find('\0'); nul != std::string::npos) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{}: the name of category {} holds a NUL byte (\\u0000, at byte {}), which "
                      "the file's class names cannot store (HDF5 strings end at a NUL); remove it "
                      "from the name in the JSON",
                      path, category.id, nul);
    }
    categories.push_back(std::move(category));
  }
  std::sort(categories.begin(), categories.end(),
            [](const CocoCategory& a, const CocoCategory& b) { return a.id < b.id; });
  for (size_t i = 1; i < categories.size(); ++i) {
    if (categories[i].id == categories[i - 1].id) {
      throw MakeError(ErrorCode::kCorrupt, "{}: two categories have the id {}", path,
                      categories[i].id);
    }
  }
  return categories;
}

std::vector<CocoImage> Images(const Json& root, const std::string& path) {
  std::vector<CocoImage> images;
  for (const Json& i : Member(root, "images", IsArray, path, "the file", "images")) {
    CocoImage image;
    image.id = Integer(Member(i, "id", IsInteger, path, "an image", "an integer"));
    const std::string what = "image " + std::to_string(image.id);
    image.file_name = Member(i, "file_name", IsString, path, what, "text").get<std::string>();
    const char* side = "a whole number of pixels, at least 1";
    image.width = static_cast<int>(Integer(Member(i, "width", IsSide, path, what, side)));
    image.height = static_cast<int>(Integer(Member(i, "height", IsSide, path, what, side)));
    images.push_back(std::move(image));
  }
  std::sort(images.begin(), images.end(),
            [](const CocoImage& a, const CocoImage& b) { return a.id < b.id; });
  for (size_t i = 1; i < images.size(); ++i) {
    if (images[i].id == images[i - 1].id) {
      throw MakeError(ErrorCode::kCorrupt, "{}: two images have the id {}", path, images[i].id);
    }
  }
  return images;
}

// Whether annotation `a` is a crowd's: its "iscrowd" is a number other than 0 or true, as
// pycocotools reads it (int(iscrowd)); absent, it is not. Anything else is refused rather than
// guessed: "1" as text would be kept as one object's box.
bool IsCrowd(const Json& a, const std::string& path, const std::string& what) {
  const auto crowd = a.find("iscrowd");
  if (crowd == a.end()) return false;
  if (crowd->is_boolean()) return crowd->get<bool>();
  if (crowd->is_number()) return crowd->get<double>() != 0;
  throw MakeError(ErrorCode::kCorrupt, "{}: {} has \"iscrowd\": {}, not 0 or 1", path, what,
                  crowd->dump());
}

// Annotation `a`'s "area" as the JSON gives it (its segmentation's), or without one its bbox's
// width x height (pycocotools gives a detection result so); never its box once clipped.
double Area(const Json& a, const Json& bbox, const std::string& path, const std::string& what) {
  const auto area = a.find("area");
  if (area == a.end()) return bbox[2].get<double>() * bbox[3].get<double>();
  if (!area->is_number()) {
    throw MakeError(ErrorCode::kCorrupt, "{}: {} has \"area\": {}, not a number", path, what,
                    area->dump());
  }
  return area->get<double>();
}

// Adds annotation `a`'s box to its image, or counts why it is not added.
void AddAnnotation(const Json& a, const std::string& path, bool keep_crowd,
                   const std::map<int64_t, size_t>& image_of,
                   const std::map<int64_t, int64_t>& label_of, CocoAnnotations& coco) {
  const int64_t id = Integer(Member(a, "id", IsInteger, path, "an annotation", "an integer"));
  const std::string what = "annotation " + std::to_string(id);
  const int64_t image_id = Integer(Member(a, "image_id", IsInteger, path, what, "an integer"));
  const int64_t category = Integer(Member(a, "category_id", IsInteger, path, what, "an integer"));
  const Json& bbox = Member(a, "bbox", IsBox, path, what, "4 numbers [x, y, width, height]");
  const auto image = image_of.find(image_id);
  if (image == image_of.end()) {
    throw MakeError(ErrorCode::kCorrupt, "{}: {} is of image {}, which \"images\" does not list",
                    path, what, image_id);
  }
  const auto label = label_of.find(category);
  if (label == label_of.end()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{}: {} is of category {}, which \"categories\" does not list", path, what,
                    category);
  }
  const bool crowd = IsCrowd(a, path, what);
  if (!keep_crowd && crowd) {
    ++coco.crowd_dropped;
    return;
  }
  const double area = Area(a, bbox, path, what);
  CocoImage& target = coco.images[image->second];
  const auto x = bbox[0].get<float>(), y = bbox[1].get<float>();
  const float width = static_cast<float>(target.width), height = static_cast<float>(target.height);
  const float box[4] = {std::clamp(x, 0.0f, width), std::clamp(y, 0.0f, height),
                        std::clamp(x + bbox[2].get<float>(), 0.0f, width),
                        std::clamp(y + bbox[3].get<float>(), 0.0f, height)};
  if (!(box[2] > box[0] && box[3] > box[1])) {
    ++coco.empty_dropped;
    return;
  }
  target.boxes.insert(target.boxes.end(), box, box + 4);
  target.labels.push_back(label->second);
  target.iscrowd.push_back(crowd ? 1 : 0);
  target.area.push_back(area);
}

}  // namespace

CocoAnnotations ReadCocoAnnotations(const std::string& path, bool keep_crowd) {
  // Polygons and RLE masks ("segmentation") are most of an instances JSON's bytes, and a parsed
  // JSON value takes several times its text's size in memory: boxes need none of them.
  const Json root = ParseJsonWithout(path, "segmentation");
  if (!root.is_object()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} is JSON but not an object: not a COCO instances "
                    "file",
                    path);
  }
  CocoAnnotations coco;
  coco.categories = Categories(root, path);
  coco.images = Images(root, path);
  std::map<int64_t, size_t> image_of;
  std::set<std::string> files;
  for (size_t i = 0; i < coco.images.size(); ++i) {
    image_of[coco.images[i].id] = i;
    if (!files.insert(coco.images[i].file_name).second && coco.repeated_files++ == 0) {
      coco.repeated_file = coco.images[i].file_name;
    }
  }
  std::map<int64_t, int64_t> label_of;
  for (size_t i = 0; i < coco.categories.size(); ++i) {
    label_of[coco.categories[i].id] = static_cast<int64_t>(i);
  }
  // Test sets (image_info_test2017.json) have no annotations: every image without boxes.
  const auto annotations = root.find("annotations");
  if (annotations == root.end()) return coco;
  if (!annotations->is_array()) {
    throw MakeError(ErrorCode::kCorrupt, "{}: \"annotations\" is not a list", path);
  }
  for (const Json& a : *annotations) {
    if (!a.is_object())
      throw MakeError(ErrorCode::kCorrupt, "{}: an annotation is not an object", path);
    AddAnnotation(a, path, keep_crowd, image_of, label_of, coco);
  }
  return coco;
}

}  // namespace h5feed::converters
