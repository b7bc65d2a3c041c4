// VerificationValue: the verify report's keys, spelled once for --json and Python's dict.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/verify.h"

namespace h5feed {
namespace {

const ReportValue& Field(const ReportValue& value, const std::string& key) {
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) {
    if (entry.first == key) return entry.second;
  }
  FAIL("no key " << key);
  return value;
}

std::vector<std::string> Keys(const ReportValue& value) {
  std::vector<std::string> keys;
  for (const auto& entry : std::get<ReportValue::Object>(value.value)) keys.push_back(entry.first);
  return keys;
}

TEST_CASE("a verify report's keys come in its order, with the verdict after the path") {
  VerificationReport r;
  r.path = "train.h5";
  r.indexed = true;
  r.chunks = 3;
  r.problems = {"label 9 of row 3 is outside the 3 classes"};
  const ReportValue value = VerificationValue(r);
  CHECK(Keys(value) == std::vector<std::string>{"path", "ok", "indexed", "is_h5feed", "samples",
                                                "chunks", "chunk_samples", "read_path",
                                                "chunks_checked", "bad_chunks", "own_size",
                                                "encodings", "images_decoded", "bad_images",
                                                "problems", "checked", "not_checked", "warnings"});
  CHECK(Field(value, "ok") == ReportValue(false));
  CHECK(Field(value, "encodings") == ReportValue());  // not a file of images at their own size
  CHECK(Field(value, "problems") == ReportValue(ReportValue::List{r.problems[0]}));
}

TEST_CASE("bad chunks and images are listed with their rows, images counted by encoding") {
  VerificationReport r;
  r.indexed = true;
  r.own_size = true;
  r.encodings.Add(ImageEncoding::kJpeg, 7);
  r.images_decoded = 7;
  r.bad_chunks = {{2, 10, 17, "checksum mismatch"}};
  r.bad_images = {{12, 2, "JPEG: Premature end of JPEG file", ""}};
  const ReportValue value = VerificationValue(r);
  CHECK(Field(value, "ok") == ReportValue(false));
  CHECK(Field(value, "encodings") == ReportValue(ReportValue::Object{{"raw", 0}, {"jpeg", 7}}));
  const auto& chunks = std::get<ReportValue::List>(Field(value, "bad_chunks").value);
  REQUIRE(chunks.size() == 1);
  CHECK(chunks[0] ==
        ReportValue(ReportValue::Object{
            {"chunk", 2}, {"first_row", 10}, {"last_row", 17}, {"problem", "checksum mismatch"}}));
  const auto& images = std::get<ReportValue::List>(Field(value, "bad_images").value);
  REQUIRE(images.size() == 1);
  CHECK(Field(images[0], "row") == ReportValue(12));
}

}  // namespace
}  // namespace h5feed
