// What `h5feed convert`, `rechunk` and `merge` print (tools/reports/conversion_report.h,
// merge_report.h, report_json.h) of reports built here, through their trees (ConversionValue,
// MergeValue): the figures derived from a report (chunk fill, ratios, rates) are the tree's.
#include "reports/conversion_report.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "conversion.h"
#include "h5feed/error.h"
#include "merge.h"
#include "reports/merge_report.h"
#include "reports/report_json.h"
#include "reports/report_view.h"

namespace h5feed::reports {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Forty 24x32x3 images of 41 inputs in chunks of 8, one input skipped.
converters::ConvertReport FixedSize() {
  converters::ConvertReport r;
  r.path = "train.h5";
  r.shape = {24, 32, 3};
  r.images = 40;
  r.chunks = 5;
  r.chunk_images = 8;
  r.skipped = {{"class_000/broken.jpg", "not a JPEG"}};
  r.compression = Compression::Parse("zstd:3");
  r.shuffled = true;
  r.seed = 5;
  r.raw_bytes = 40 * 24 * 32 * 3;
  r.stored_bytes = 23040;
  r.seconds = 2;
  return r;
}

// Ten images at their own size, "smart:90": 4 JPEG and 6 raw, in 2 chunks of 1000 bytes.
converters::ConvertReport OwnSize() {
  converters::ConvertReport r = FixedSize();
  r.shape = {64, 48, 3};
  r.images = 10;
  r.chunks = 2;
  r.chunk_images = 0;
  r.skipped.clear();
  r.own_size = true;
  r.chunk_bytes = 1000;
  r.max_side = 64;
  r.encoding = StoredEncoding::Parse("smart:90");
  r.smart_threshold = 3072;
  r.encodings.Add(ImageEncoding::kJpeg, 4);
  r.encodings.Add(ImageEncoding::kRaw, 6);
  r.payload_bytes = 1500;
  r.raw_bytes = 12000;
  r.stored_bytes = 2000;
  r.compression = Compression::Parse("none");
  return r;
}

TEST_CASE("a conversion's summary says what was written, from how many inputs, and each skip") {
  const std::string text = ConversionText(converters::ConversionValue(FixedSize()), "photos/");
  INFO(text);
  CHECK(
      text.starts_with("converted 40 of 41 images from photos/ to train.h5 in 2.0 s "
                       "(20 images/s)\n"));
  CHECK(Contains(text,
                 "  24x32x3 uint8, 5 chunks of 8 images, zstd:3: 90.0 KiB -> 22.5 KiB "
                 "(4.00x), shuffled with seed 5\n"));
  CHECK(Contains(text,
                 "  1 skipped (recorded in train.h5:/skipped_sources):\n"
                 "    class_000/broken.jpg: not a JPEG\n"));
  const nlohmann::json json =
      nlohmann::json::parse(ToJson(converters::ConversionValue(FixedSize())));
  CHECK(json["format_version"] == 1);
  CHECK(json["inputs"] == 41);
  CHECK(json["image_shape"] == nlohmann::json{24, 32, 3});
  CHECK(json["compression_ratio"] == doctest::Approx(4.0));
  CHECK(json["skipped"][0]["reason"] == "not a JPEG");
  CHECK_FALSE(json.contains("chunk_fill"));  // the keys of images at their own size
  CHECK_FALSE(json.contains("encodings"));
}

TEST_CASE("a conversion that skipped thousands of inputs lists twenty, and the JSON all") {
  converters::ConvertReport report = FixedSize();
  report.skipped.clear();
  for (int i = 0; i < 5000; ++i) {
    report.skipped.push_back({"class_000/broken_" + std::to_string(i) + ".jpg", "not a JPEG"});
  }
  const std::string text = ConversionText(converters::ConversionValue(report), "photos/");
  CHECK(Contains(text,
                 "  5,000 skipped (recorded in train.h5:/skipped_sources):\n"
                 "    class_000/broken_0.jpg: not a JPEG\n"));
  CHECK(Contains(text,
                 "    class_000/broken_19.jpg: not a JPEG\n"
                 "    ... 4980 more (--json lists all)\n"));
  CHECK_FALSE(Contains(text, "broken_20.jpg"));
  const nlohmann::json json = nlohmann::json::parse(ToJson(converters::ConversionValue(report)));
  CHECK(json["skipped"].size() == 5000);
}

TEST_CASE("an own-size conversion reports its chunk fill and its images by encoding") {
  const std::string text = ConversionText(converters::ConversionValue(OwnSize()), "photos/");
  INFO(text);
  CHECK(Contains(text,
                 "  each image at its own size (longer side at most 64), smart:90 (JPEG "
                 "4:2:0 above 3.0 KiB of pixels: 6 raw, 4 jpeg), 2 chunks of 1000 B (5.0 "
                 "images a chunk, 75% full), none: 11.8 KiB of pixels -> 2.0 KiB (6.00x), "
                 "shuffled with seed 5\n"));
  const nlohmann::json json = nlohmann::json::parse(ToJson(converters::ConversionValue(OwnSize())));
  CHECK(json["format_version"] == 2);
  CHECK(json["chunk_fill"] == doctest::Approx(0.75));
  CHECK(json["images_per_chunk"] == doctest::Approx(5.0));
  CHECK(json["encodings"] == nlohmann::json{{"raw", 6}, {"jpeg", 4}});
  CHECK(json["smart_threshold"] == 3072);
  converters::ConvertReport jpeg = OwnSize();
  jpeg.encoding = StoredEncoding::Parse("jpeg:90");
  CHECK(
      Contains(ConversionText(converters::ConversionValue(jpeg), "x"), ", jpeg:90 (JPEG 4:2:0), "));
  CHECK(nlohmann::json::parse(ToJson(converters::ConversionValue(jpeg)))["smart_threshold"] == 0);
}

TEST_CASE("a seed beyond int64's range is written as it is") {
  converters::ConvertReport r = FixedSize();
  r.seed = 18446744073709551615u;
  CHECK(
      Contains(ConversionText(converters::ConversionValue(r), "x"), "seed 18446744073709551615\n"));
  CHECK(nlohmann::json::parse(ToJson(converters::ConversionValue(r)))["seed"] == r.seed);
}

TEST_CASE("a merge's summary says what was copied and what was compressed again") {
  converters::MergeReport r;
  r.path = "train.h5";
  r.parts = 4;
  r.images = 5000;
  r.skipped = 2;
  r.chunks = 40;
  r.copied_chunks = 37;
  r.repacked_rows = 100;
  r.copied_bytes = 3 << 20;
  r.stored_bytes = 4 << 20;
  r.seconds = 2;
  const std::string text = MergeText(converters::MergeValue(r));
  INFO(text);
  CHECK(text ==
        "merged 4 parts into train.h5 in 2.0 s (2.0 MiB/s): 5,000 images, 40 chunks, "
        "4.0 MiB\n"
        "  37 chunks copied untouched (3.0 MiB), 100 images of the parts' short last "
        "chunks compressed again\n"
        "  2 inputs the parts skipped are recorded in train.h5:/skipped_sources\n");
  const nlohmann::json json = nlohmann::json::parse(ToJson(converters::MergeValue(r)));
  CHECK(json["bytes_per_s"] == doctest::Approx(2 << 20));
  CHECK(json["copied_chunks"] == 37);
}

TEST_CASE("a text that asks a tree for a key it lacks is a bug named by the key's path") {
  const ReportValue value = converters::ConversionValue(FixedSize());
  const ReportView view(value);
  CHECK(view["skipped"].Items()[0]["source"].Text() == "class_000/broken.jpg");
  try {
    (void)view["skipped"].Items()[0]["row"];
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInternal);
    CHECK(Contains(e.what(), "'skipped[0]' has no key 'row'"));
  }
  CHECK_THROWS_AS((void)view["images"].Text(), Error);
}

}  // namespace
}  // namespace h5feed::reports
