// `h5feed inspect`'s rendering (tools/reports/file_summary_report.h, report_json.h) of
// summaries built here, through their tree (SummaryValue): the summary is data, so what the
// text and the JSON show is checked without a file.
#include "reports/file_summary_report.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "h5feed/file_summary.h"
#include "reports/report_json.h"

namespace h5feed::reports {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Text(const FileSummary& s) { return SummaryText(SummaryValue(s)); }
std::string Json(const FileSummary& s) { return ToJson(SummaryValue(s)); }

// What SummarizeFile returns for ten 8x6x3 images in zstd chunks of 4, three classes.
FileSummary H5feedSummary() {
  FileSummary s;
  s.path = "/data/train.h5";
  s.file_bytes = 5000;
  s.is_h5feed = true;
  s.format_version = 1;
  s.datasets = {{"images",
                 {10, 8, 6, 3},
                 "uint8",
                 true,
                 true,
                 false,
                 {4, 8, 6, 3},
                 {"zstd:3"},
                 240,
                 1440,
                 6.0},
                {"labels", {10}, "int64", false, true, false, {}, {}, 80, 80, 1.0}};
  s.attributes = {{"shuffle_seed", "42"}, {"source_kind", "imagefolder"}};
  s.has_images = true;
  s.images = "images";
  s.layout = StoredLayout::kNHWC;
  s.num_images = 10;
  s.height = 8;
  s.width = 6;
  s.channels = 3;
  s.chunk_images = 4;
  s.chunk_count = 3;
  s.compression = "zstd:3";
  s.compression_ratio = 6.0;
  s.labels = "labels";
  s.classes = {{"cat", 2}, {"dog", 3}, {"eel", 5}};
  s.label_order = LabelOrder{"mixed", 6, 3, 7.2};
  s.has_skipped = true;
  s.skipped = {{"dog/broken.jpg", "truncated JPEG"}, {"eel/empty.png", "empty file"}};
  return s;
}

// What SummarizeFile returns for six images at their own size (format version 2), "smart:90":
// three JPEG and three raw, in two chunks of 100 bytes, uncompressed.
FileSummary FlatSummary() {
  FileSummary s = H5feedSummary();
  s.format_version = 2;
  s.datasets[0] = {"images", {200}, "uint8", true, true, false, {100}, {}, 200, 200, 1.0};
  s.layout = StoredLayout::kFlat;
  s.num_images = 6;
  s.height = 6;
  s.width = 6;
  s.chunk_images = 4;
  s.chunk_count = 2;
  s.compression = "none";
  s.compression_ratio = 1.0;
  OwnSizeSummary o;
  o.encoding = "smart:90";
  o.smart_threshold = 30;
  o.encodings.Add(ImageEncoding::kRaw, 3);
  o.encodings.Add(ImageEncoding::kJpeg, 3);
  o.max_side = 6;
  o.chunk_bytes = 100;
  o.chunks = 2;
  o.mean_images_per_chunk = 3;
  o.min_images_per_chunk = 2;
  o.max_images_per_chunk = 4;
  o.height = {1, 3, 6};
  o.width = {1, 3, 6};
  o.aspect = {1, 2, 3};
  o.pixel_bytes = 234;
  o.image_bytes = 133;
  o.chunk_fill = 0.66;
  o.stored_bytes = 200;
  o.pixel_ratio = 1.17;
  s.own_size = o;
  return s;
}

TEST_CASE("an own-size file shows its encodings, sizes, aspect ratios, chunks and stored bytes") {
  const std::string text = Text(FlatSummary());
  CHECK(Contains(text, "format       h5feed version 2\n"));
  CHECK(Contains(text,
                 "images       images: 6 images at their own size, up to 6x6x3 (HxWxC), "
                 "layout flat\n"));
  CHECK(Contains(text, "encoding     smart:90 (JPEG above 30 bytes of pixels): 3 raw, 3 jpeg\n"));
  CHECK(Contains(text, "max side     6 (longer side capped)\n"));
  CHECK(Contains(text, "sizes        height 1 / 3 / 6, width 1 / 3 / 6 (min / median / max)\n"));
  CHECK(Contains(text, "aspect       1 portrait, 2 square, 3 landscape\n"));
  CHECK(Contains(text, "chunks       2 chunks of 100 B (3.0 images a chunk, 2 to 4), 66% full\n"));
  CHECK(Contains(text, "compression  none\n"));  // the ratio is the pixels', below
  CHECK(Contains(text, "stored       234 B of pixels (H*W*C) -> 200 B stored (1.17x)\n"));

  const nlohmann::json json = nlohmann::json::parse(Json(FlatSummary()));
  const nlohmann::json& own = json["images"]["own_size"];
  CHECK(json["images"]["layout"] == "flat");
  CHECK(own["encoding"] == "smart:90");
  CHECK(own["encodings"] == nlohmann::json{{"raw", 3}, {"jpeg", 3}});
  CHECK(json["images"]["chunk_bytes"] == 100);
  CHECK(own["images_per_chunk"]["max"] == 4);
  CHECK(own["height"]["median"] == 3);
  CHECK(own["aspect"]["landscape"] == 3);
  CHECK(own["pixel_ratio"] == doctest::Approx(1.17));
  CHECK(nlohmann::json::parse(Json(H5feedSummary()))["images"]["own_size"].is_null());
}

TEST_CASE("a file's fields are listed with kind, type, shape and bytes; no labels is said") {
  FileSummary s = H5feedSummary();
  s.labelled = false;
  s.fields = {{"attrs", "array", "bool", {40}, "bool[40]", 120, 400, "chunks", 0},
              {"caption", "text", "", {}, "text", 400, 80, "global heap", 240},
              {"remote", "bytes", "", {}, "bytes", 0, 0, "global heap", 0}};
  s.datasets.push_back({"caption", {10}, "string", false, false, true, {5}, {}, 160, 0, 0, 240});
  const std::string text = Text(s);
  // The descriptors in the chunks, and beside them the values HDF5 keeps in its global heap.
  CHECK(Contains(text,
                 "  caption string (10,) chunks (5,), 160 B stored + 240 B of values in HDF5's "
                 "global heap\n"));
  CHECK(Contains(text, "labels       none: the samples have none\n"));
  CHECK(Contains(text,
                 "fields       3\n"
                 "  attrs    array of bool, shape (40,): 400 B of values, 120 B stored\n"
                 "  caption  text: 80 B of values, 400 B stored (values in HDF5's global heap, "
                 "unfiltered)\n"
                 "  remote   bytes: stored size unknown (values in HDF5's global heap, "
                 "unfiltered)\n"));
  const nlohmann::json json = nlohmann::json::parse(Json(s));
  CHECK(json["labelled"] == false);
  CHECK(json["fields"][0]["shape"] == nlohmann::json::array({40}));
  CHECK(json["fields"][1]["dtype"].is_null());
  CHECK(json["fields"][1]["storage"] == "global heap");
  CHECK(json["fields"][1]["heap_bytes"] == 240);
  CHECK(json["fields"][0]["heap_bytes"] == 0);
  CHECK(json["datasets"].back()["heap_bytes"] == 240);
  CHECK(!Contains(Text(H5feedSummary()), "fields"));
}

TEST_CASE("the JSON holds every field of the summary, in the order the summary declares them") {
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(Json(H5feedSummary()));
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"path", "file_bytes", "is_h5feed", "format_version",
                                         "datasets", "attributes", "images", "labels",
                                         "label_order", "classes", "skipped", "labelled", "fields",
                                         "box_classes", "notes"});
  CHECK(json["images"]["num_images"] == 10);
  CHECK(json["images"]["layout"] == "NHWC");
  CHECK(json["images"]["chunk_count"] == 3);
  CHECK(json["images"]["compression"] == "zstd:3");
  CHECK(json["datasets"][0]["chunk_shape"] == std::vector<int64_t>{4, 8, 6, 3});
  CHECK(json["datasets"][0]["ratio"] == 6.0);
  CHECK(json["classes"][2]["name"] == "eel");
  CHECK(json["classes"][2]["count"] == 5);
  CHECK(json["skipped"][1]["source"] == "eel/empty.png");
  CHECK(json["attributes"]["shuffle_seed"] == "42");
  CHECK(json["label_order"]["runs"] == 6);
  CHECK(json["label_order"]["random_runs"] == doctest::Approx(7.2));
  CHECK(json["notes"].empty());
}

TEST_CASE("what a file lacks is null in the JSON and said in the text") {
  FileSummary s;
  s.path = "/data/none.h5";
  s.notes = {"no image dataset in /data/none.h5"};
  const nlohmann::json json = nlohmann::json::parse(Json(s));
  CHECK(json["images"].is_null());
  CHECK(json["labels"].is_null());
  CHECK(json["label_order"].is_null());
  CHECK(json["skipped"].is_null());
  CHECK(json["notes"][0] == "no image dataset in /data/none.h5");
  const std::string text = Text(s);
  CHECK(Contains(text, "images       none found"));
  CHECK(Contains(text, "format       HDF5 (not written by h5feed)"));
  CHECK(Contains(text, "note: no image dataset in /data/none.h5"));
  CHECK_FALSE(Contains(text, "label order"));
  CHECK_FALSE(Contains(text, "skipped"));
}

TEST_CASE("the text shows the essentials of an h5feed file on aligned lines") {
  const std::string text = Text(H5feedSummary());
  INFO(text);
  for (const char* expected :
       {"file         /data/train.h5 (4.9 KiB)", "format       h5feed version 1",
        "images       images: 10 images of 8x6x3 (HxWxC), layout NHWC",
        "chunks       3 chunks of 4 images (576 B uncompressed), chunk shape (4, 8, 6, 3)",
        "compression  zstd:3, ratio 6.00 (240 B stored)", "classes      3, counts from labels",
        "  0  cat  2\n  1  dog  3\n  2  eel  5\n",
        "label order  mixed: 6 runs of one label for 3 classes (a random order has about 7)",
        "skipped      2 sources", "  dog/broken.jpg: truncated JPEG", "  shuffle_seed = 42",
        "datasets     2",
        "  images uint8 (10, 8, 6, 3) chunks (4, 8, 6, 3) zstd:3, 240 B stored, "
        "ratio 6.00",
        "  labels int64 (10,), 80 B stored\n"}) {
    CHECK(Contains(text, expected));
  }
}

TEST_CASE("counts are in the singular for one and grouped by thousands, every count alike") {
  FileSummary s = H5feedSummary();
  s.num_images = 2400;
  s.chunk_images = 2400;
  s.chunk_count = 1;
  s.classes = {{"cat", 2400}};
  s.label_order = LabelOrder{"sorted", 1, 1, 1.0};
  s.skipped = {{"dog/broken.jpg", "truncated JPEG"}};
  const std::string text = Text(s);
  INFO(text);
  CHECK(Contains(text, "images: 2,400 images of 8x6x3"));
  CHECK(Contains(text, "chunks       1 chunk of 2,400 images ("));
  CHECK(Contains(text, "  0  cat  2,400\n"));
  CHECK(Contains(text, "1 run of one label for 1 class ("));
  CHECK(Contains(text, "skipped      1 source\n"));
  FileSummary flat = FlatSummary();
  flat.num_images = 2400;
  flat.own_size->encodings = {};
  flat.own_size->encodings.Add(ImageEncoding::kJpeg, 2400);
  flat.own_size->chunks = 1;
  const std::string own = Text(flat);
  INFO(own);
  CHECK(Contains(own, "images: 2,400 images at their own size"));
  CHECK(Contains(own, "2,400 jpeg"));
  CHECK(Contains(own, "chunks       1 chunk of 100 B"));
}

TEST_CASE("grayscale images show their one channel, and an inferred layout says so") {
  FileSummary s = H5feedSummary();
  s.layout = StoredLayout::kNHW;
  s.channels = 1;
  CHECK(Contains(Text(s), "10 images of 8x6x1 (HxWxC), layout NHW\n"));
  s.layout = StoredLayout::kNCHW;
  s.layout_guessed = true;
  CHECK(Contains(Text(s), "layout NCHW (inferred)"));
}

TEST_CASE("long class and skipped lists are cut in the text, whole in the JSON") {
  FileSummary s;
  s.path = "many.h5";
  // Names built with append: GCC 12 warns falsely (-Wrestrict) on "c" + std::to_string(i).
  for (int i = 0; i < 60; ++i) s.classes.push_back({std::string("c").append(std::to_string(i)), i});
  s.has_skipped = true;
  for (int i = 0; i < 25; ++i) {
    s.skipped.push_back({std::string("s").append(std::to_string(i)), "bad"});
  }
  const std::string text = Text(s);
  CHECK(Contains(text, "c49"));
  CHECK_FALSE(Contains(text, "c50"));
  CHECK(Contains(text, "... 10 more (--json lists all)"));
  CHECK(Contains(text, "s19: bad"));
  CHECK_FALSE(Contains(text, "s20: bad"));
  CHECK(Contains(text, "... 5 more (--json lists all)"));
  const nlohmann::json json = nlohmann::json::parse(Json(s));
  CHECK(json["classes"].size() == 60);
  CHECK(json["skipped"].size() == 25);
}

TEST_CASE("UTF-8 class names line up by characters; bytes that are not UTF-8 are replaced") {
  FileSummary s;
  s.path = "names.h5";
  s.classes = {{"\xc3\xa9meu", 1}, {"ox", 2}};  // "émeu": 5 bytes, 4 characters
  const std::string text = Text(s);
  CHECK(Contains(text, "  0  \xc3\xa9meu  1\n  1  ox    2\n"));
  s.classes = {{"bad\xff", 3}};
  const nlohmann::json json = nlohmann::json::parse(Json(s));
  CHECK(json["classes"][0]["name"] == "bad\xef\xbf\xbd");  // U+FFFD
}

}  // namespace
}  // namespace h5feed::reports
