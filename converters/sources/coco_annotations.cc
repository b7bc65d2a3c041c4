#include "sources/coco_annotations.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

using Json = nlohmann::json;

// `object`[key], which must be there and of the type `check` accepts; else Error(kCorrupt)
// naming the file, `what` (e.g. "annotation 12") and the member.
template <typename Check>
const Json& Member(const Json& object, const char* key, Check check, const std::string& path,
                   const std::string& what, const char* expected) {
  const auto found = object.find(key);
  if (found == object.end() || !check(*found)) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{}: {} has no \"{}\" of {}; is it a COCO instances "
                    "JSON (cocodataset.org/#format-data)?",
                    path, what, key, expected);
  }
  return *found;
}

bool IsInteger(const Json& j) { return j.is_number_integer(); }
bool IsString(const Json& j) { return j.is_string(); }
bool IsArray(const Json& j) { return j.is_array(); }
bool IsBox(const Json& j) {
  return j.is_array() && j.size() == 4 &&
         std::all_of(j.begin(), j.end(), [](const Json& v) { return v.is_number(); });
}

Json Parse(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MakeError(ErrorCode::kNotFound, "cannot open the annotations {}", path);
  // Polygons and RLE masks ("segmentation") are most of an instances JSON's bytes, and a parsed
  // JSON value takes several times its text's size in memory: boxes need none of them, so they
  // are dropped as they are parsed.
  const Json::parser_callback_t drop_segmentations = [](int, Json::parse_event_t event,
                                                        Json& parsed) {
    return !(event == Json::parse_event_t::key && parsed == "segmentation");
  };
  try {
    return Json::parse(in, drop_segmentations);
  } catch (const Json::parse_error& e) {
    throw MakeError(ErrorCode::kCorrupt, "{} is not valid JSON: {}", path, e.what());
  }
}

std::vector<CocoCategory> Categories(const Json& root, const std::string& path) {
  std::vector<CocoCategory> categories;
  for (const Json& c : Member(root, "categories", IsArray, path, "the file", "categories")) {
    const std::string what = "a category";
    categories.push_back({Member(c, "id", IsInteger, path, what, "an integer").get<int64_t>(),
                          Member(c, "name", IsString, path, what, "text").get<std::string>()});
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
    image.id = Member(i, "id", IsInteger, path, "an image", "an integer").get<int64_t>();
    const std::string what = "image " + std::to_string(image.id);
    image.file_name = Member(i, "file_name", IsString, path, what, "text").get<std::string>();
    image.width = Member(i, "width", IsInteger, path, what, "an integer").get<int>();
    image.height = Member(i, "height", IsInteger, path, what, "an integer").get<int>();
    if (image.width <= 0 || image.height <= 0) {
      throw MakeError(ErrorCode::kCorrupt, "{}: {} ({}) is {}x{} (WxH): not an image's size", path,
                      what, image.file_name, image.width, image.height);
    }
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

// Adds annotation `a`'s box to its image, or counts why it is not added.
void AddAnnotation(const Json& a, const std::string& path, bool keep_crowd,
                   const std::map<int64_t, size_t>& image_of,
                   const std::map<int64_t, int64_t>& label_of, CocoAnnotations& coco) {
  const int64_t id = Member(a, "id", IsInteger, path, "an annotation", "an integer").get<int64_t>();
  const std::string what = "annotation " + std::to_string(id);
  const int64_t image_id =
      Member(a, "image_id", IsInteger, path, what, "an integer").get<int64_t>();
  const int64_t category =
      Member(a, "category_id", IsInteger, path, what, "an integer").get<int64_t>();
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
  const auto crowd = a.find("iscrowd");
  if (!keep_crowd && crowd != a.end() && crowd->is_number() && crowd->get<double>() != 0) {
    ++coco.crowd_dropped;
    return;
  }
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
}

}  // namespace

CocoAnnotations ReadCocoAnnotations(const std::string& path, bool keep_crowd) {
  const Json root = Parse(path);
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
  for (size_t i = 0; i < coco.images.size(); ++i) image_of[coco.images[i].id] = i;
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
