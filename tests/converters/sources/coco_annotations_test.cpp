#include "sources/coco_annotations.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/error.h"
#include "scratch_dir.h"

namespace h5feed::converters {
namespace {

using testing::ScratchDir;
using testing::WriteText;

constexpr char kImages[] =
    R"("images": [{"id": 7, "file_name": "b.jpg", "height": 10, "width": 20},
                  {"id": 3, "file_name": "a.jpg", "height": 40, "width": 30}])";
constexpr char kCategories[] =
    R"("categories": [{"id": 90, "name": "toothbrush"}, {"id": 1, "name": "person"},
                      {"id": 3, "name": "car"}])";

std::string Json(const std::string& annotations) {
  return std::string("{") + kImages + ", " + kCategories + ", \"annotations\": [" + annotations +
         "]}";
}

CocoAnnotations Read(const ScratchDir& dir, const std::string& text, bool keep_crowd = false) {
  WriteText(dir.path() + "/instances.json", text);
  return ReadCocoAnnotations(dir.path() + "/instances.json", keep_crowd);
}

std::string ErrorOf(const ScratchDir& dir, const std::string& text) {
  try {
    Read(dir, text);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    return e.what();
  }
  FAIL("read without an error: " << text);
  return "";
}

TEST_CASE("categories are labelled in id order and images sorted by id") {
  ScratchDir dir;
  const CocoAnnotations coco = Read(dir, Json(""));
  REQUIRE(coco.categories.size() == 3);
  CHECK(coco.categories[0].id == 1);
  CHECK(coco.categories[1].name == "car");
  CHECK(coco.categories[2].id == 90);
  REQUIRE(coco.images.size() == 2);
  CHECK(coco.images[0].file_name == "a.jpg");
  CHECK(coco.images[0].height == 40);
  CHECK(coco.images[1].boxes.empty());
}

TEST_CASE("xywh boxes become xyxy clipped to the image, with contiguous labels") {
  ScratchDir dir;
  const CocoAnnotations coco =
      Read(dir, Json(R"({"id": 1, "image_id": 7, "category_id": 90, "bbox": [2.5, 1, 4, 3]},
                       {"id": 2, "image_id": 7, "category_id": 3, "bbox": [15, -2, 10, 5]},
                       {"id": 3, "image_id": 7, "category_id": 1, "bbox": [30, 0, 5, 5]})"));
  const CocoImage& image = coco.images[1];
  CHECK(image.boxes == std::vector<float>{2.5f, 1, 6.5f, 4, 15, 0, 20, 3});
  CHECK(image.labels == std::vector<int64_t>{2, 1});
  CHECK(coco.empty_dropped == 1);  // outside the image: nothing left once clipped
}

TEST_CASE("polygons and RLE masks are skipped by the parser, whatever their shape") {
  ScratchDir dir;
  const CocoAnnotations coco =
      Read(dir, Json(R"({"id": 1, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5],
                   "segmentation": [[1, 2, 3, 4, 5, 6]], "area": 12.5},
                  {"id": 2, "image_id": 3, "category_id": 3, "bbox": [1, 1, 5, 5], "iscrowd": 1,
                   "segmentation": {"counts": "PPYo0", "size": [40, 30]}})"),
           true);
  CHECK(coco.images[0].labels == std::vector<int64_t>{0, 1});
}

TEST_CASE("crowd boxes are dropped and counted unless kept") {
  ScratchDir dir;
  const std::string text = Json(
      R"({"id": 1, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5], "iscrowd": 1},
         {"id": 2, "image_id": 3, "category_id": 1, "bbox": [1, 1, 5, 5], "iscrowd": 0})");
  const CocoAnnotations dropped = Read(dir, text);
  CHECK(dropped.images[0].labels.size() == 1);
  CHECK(dropped.crowd_dropped == 1);
  const CocoAnnotations kept = Read(dir, text, true);
  CHECK(kept.images[0].labels.size() == 2);
  CHECK(kept.crowd_dropped == 0);
  // Each kept box's iscrowd, and its area: without one in the JSON, its bbox's w x h.
  CHECK(dropped.images[0].iscrowd == std::vector<int64_t>{0});
  CHECK(kept.images[0].iscrowd == std::vector<int64_t>{1, 0});
  CHECK(kept.images[0].area == std::vector<double>{25.0, 25.0});
}

TEST_CASE(
    "an annotation's area is the JSON's, never its clipped box's; one not a number is "
    "refused") {
  ScratchDir dir;
  const CocoAnnotations coco =
      Read(dir, Json(R"({"id": 1, "image_id": 3, "category_id": 1, "bbox": [8, 0, 50, 5],
                   "area": 123.456})"));
  REQUIRE(coco.images[0].area.size() == 1);
  CHECK(coco.images[0].area[0] == 123.456);
  CHECK(ErrorOf(dir, Json(R"({"id": 4, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5],
                             "area": "big"})"))
            .find("annotation 4 has \"area\": \"big\", not a number") != std::string::npos);
}

TEST_CASE("broken annotations are errors naming the file and what is wrong") {
  ScratchDir dir;
  CHECK(ErrorOf(dir, "{\"images\": [").find("is not valid JSON") != std::string::npos);
  CHECK(ErrorOf(dir, "[1, 2]").find("not an object") != std::string::npos);
  CHECK(ErrorOf(dir, std::string("{") + kImages + "}").find("\"categories\"") != std::string::npos);
  CHECK(ErrorOf(dir, Json(R"({"id": 5, "image_id": 8, "category_id": 1, "bbox": [0, 0, 1, 1]})"))
            .find("annotation 5 is of image 8") != std::string::npos);
  CHECK(ErrorOf(dir, Json(R"({"id": 6, "image_id": 7, "category_id": 2, "bbox": [0, 0, 1, 1]})"))
            .find("annotation 6 is of category 2") != std::string::npos);
  const std::string no_box =
      ErrorOf(dir, Json(R"({"id": 9, "image_id": 7, "category_id": 1, "bbox": [0, 0, 1]})"));
  CHECK(no_box.find("annotation 9 has \"bbox\": [0,0,1], not 4 numbers") != std::string::npos);
  CHECK(no_box.find("instances.json") != std::string::npos);
  CHECK_THROWS_AS(ReadCocoAnnotations(dir.path() + "/none.json", false), Error);
}

TEST_CASE("a member there but of the wrong type is named with its value") {
  ScratchDir dir;
  const std::string missing =
      ErrorOf(dir, Json(R"({"id": 9, "image_id": 7, "category_id": 1, "area": 1})"));
  CHECK(missing.find("annotation 9 has no \"bbox\"") != std::string::npos);
  CHECK(ErrorOf(dir, R"({"images": [{"id": "7", "file_name": "a.jpg", "height": 1, "width": 1}],
                         "categories": [{"id": 1, "name": "a"}]})")
            .find("an image has \"id\": \"7\", not an integer") != std::string::npos);
}

TEST_CASE("ids and sides written as floats of integer value read as the integers") {
  ScratchDir dir;
  // JSON written from numpy floats; pycocotools and torchvision read it.
  const CocoAnnotations coco = Read(dir, R"({
      "images": [{"id": 7.0, "file_name": "a.jpg", "height": 40.0, "width": 30}],
      "categories": [{"id": 3.0, "name": "car"}],
      "annotations": [{"id": 1.0, "image_id": 7.0, "category_id": 3.0, "bbox": [1, 2, 3, 4]}]})");
  REQUIRE(coco.images.size() == 1);
  CHECK(coco.images[0].id == 7);
  CHECK(coco.images[0].height == 40);
  CHECK(coco.images[0].labels == std::vector<int64_t>{0});
  CHECK(coco.categories[0].id == 3);
}

TEST_CASE("a side that is not a whole number of pixels within int is refused with its value") {
  ScratchDir dir;
  const auto image = [](const std::string& width) {
    return R"({"images": [{"id": 7, "file_name": "a.jpg", "height": 4, "width": )" + width +
           R"(}], "categories": [{"id": 1, "name": "a"}]})";
  };
  // 2^40 was read as an int: 0, and the message said the image was 0 wide.
  CHECK(ErrorOf(dir, image("1099511627776"))
            .find("image 7 has \"width\": 1099511627776, not a whole number of pixels") !=
        std::string::npos);
  CHECK(ErrorOf(dir, image("30.5")).find("\"width\": 30.5") != std::string::npos);
  CHECK(ErrorOf(dir, image("0")).find("\"width\": 0") != std::string::npos);
  CHECK(ErrorOf(dir, image("-3")).find("\"width\": -3") != std::string::npos);
}

TEST_CASE("iscrowd true is a crowd, and an iscrowd of text is refused naming the annotation") {
  ScratchDir dir;
  const CocoAnnotations coco =
      Read(dir, Json(R"({"id": 1, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5],
                         "iscrowd": true},
                        {"id": 2, "image_id": 3, "category_id": 1, "bbox": [1, 1, 5, 5],
                         "iscrowd": false})"));
  CHECK(coco.images[0].labels.size() == 1);
  CHECK(coco.crowd_dropped == 1);
  CHECK(ErrorOf(dir, Json(R"({"id": 4, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5],
                              "iscrowd": "1"})"))
            .find("annotation 4 has \"iscrowd\": \"1\", not 0 or 1") != std::string::npos);
}

TEST_CASE("a file named by two image ids is counted, each id kept with its own boxes") {
  ScratchDir dir;
  const CocoAnnotations coco = Read(dir, R"({
      "images": [{"id": 7, "file_name": "a.jpg", "height": 4, "width": 4},
                 {"id": 3, "file_name": "a.jpg", "height": 4, "width": 4},
                 {"id": 5, "file_name": "b.jpg", "height": 4, "width": 4}],
      "categories": [{"id": 1, "name": "a"}],
      "annotations": [{"id": 1, "image_id": 7, "category_id": 1, "bbox": [0, 0, 1, 1]}]})");
  REQUIRE(coco.images.size() == 3);
  CHECK(coco.repeated_files == 1);
  CHECK(coco.repeated_file == "a.jpg");
  CHECK(coco.images[2].labels.size() == 1);
  CHECK(Read(dir, Json("")).repeated_files == 0);
}

TEST_CASE("a byte order mark before the JSON is read past") {
  ScratchDir dir;
  const CocoAnnotations coco = Read(dir, "\xEF\xBB\xBF" + Json(""));
  CHECK(coco.images.size() == 2);
}

}  // namespace
}  // namespace h5feed::converters
