// SummaryValue: the inspect report's keys, spelled once for --json and Python's dict.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/file_summary.h"

namespace h5feed {
namespace {

const ReportValue* Field(const ReportValue& value, const std::string& key) {
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) {
    if (entry.first == key) return &entry.second;
  }
  return nullptr;
}

std::vector<std::string> Keys(const ReportValue& value) {
  std::vector<std::string> keys;
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) keys.push_back(entry.first);
  return keys;
}

TEST_CASE("a summary's keys come in FileSummary's order, absent parts null") {
  FileSummary s;
  s.path = "train.h5";
  s.file_bytes = 1234;
  const ReportValue value = SummaryValue(s);
  CHECK(Keys(value) == std::vector<std::string>{"path", "file_bytes", "is_h5feed", "format_version",
                                                "datasets", "attributes", "images", "labels",
                                                "label_order", "classes", "skipped", "labelled",
                                                "fields", "box_classes", "notes"});
  CHECK(*Field(value, "path") == ReportValue("train.h5"));
  CHECK(*Field(value, "file_bytes") == ReportValue(1234));
  CHECK(*Field(value, "images") == ReportValue());
  CHECK(*Field(value, "labels") == ReportValue());
  CHECK(*Field(value, "skipped") == ReportValue());
  CHECK(*Field(value, "attributes") == ReportValue(ReportValue::Object{}));
}

TEST_CASE("images, their own sizes and the skipped sources are written when present") {
  FileSummary s;
  s.has_images = true;
  s.images = "/images";
  s.layout = StoredLayout::kFlat;
  s.num_images = 7;
  s.own_size = OwnSizeSummary{};
  s.own_size->encodings.Add(ImageEncoding::kJpeg, 5);
  s.own_size->height = SizeSpread{10, 20, 30};
  s.has_skipped = true;
  s.skipped.push_back(SkippedSource{"a.jpg", "truncated"});
  const ReportValue value = SummaryValue(s);
  const ReportValue& images = *Field(value, "images");
  CHECK(*Field(images, "layout") == ReportValue("flat"));
  CHECK(*Field(images, "num_images") == ReportValue(7));
  const ReportValue& own_size = *Field(images, "own_size");
  // Every encoding the decoder table knows, counted or not, under its decoder's key.
  CHECK(*Field(own_size, "encodings") == ReportValue(ReportValue::Object{{"raw", 0}, {"jpeg", 5}}));
  CHECK(*Field(*Field(own_size, "height"), "median") == ReportValue(20));
  const auto& skipped = std::get<ReportValue::List>(Field(value, "skipped")->value);
  REQUIRE(skipped.size() == 1);
  CHECK(*Field(skipped[0], "reason") == ReportValue("truncated"));
}

TEST_CASE("an attribute named twice keeps its last value, as a JSON object or a dict would") {
  FileSummary s;
  s.attributes = {{"format", "h5feed"}, {"note", "first"}, {"note", "second"}};
  const ReportValue value = SummaryValue(s);
  const ReportValue& attributes = *Field(value, "attributes");
  CHECK(Keys(attributes) == std::vector<std::string>{"format", "note"});
  CHECK(*Field(attributes, "note") == ReportValue("second"));
}

}  // namespace
}  // namespace h5feed
