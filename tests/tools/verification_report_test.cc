// `h5feed verify`'s rendering (tools/reports/verification_report.h, report_json.h) of reports
// built here, through their tree (VerificationValue).
#include "reports/verification_report.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "h5feed/verify.h"
#include "reports/report_json.h"

namespace h5feed::reports {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Text(const VerificationReport& r) { return VerificationText(VerificationValue(r)); }
std::string Json(const VerificationReport& r) { return ToJson(VerificationValue(r)); }

VerificationReport Sound() {
  VerificationReport r;
  r.path = "train.h5";
  r.indexed = true;
  r.is_h5feed = true;
  r.samples = 50;
  r.chunks = 7;
  r.chunk_samples = 8;
  r.read_path = "stored chunk table (pread)";
  r.chunks_checked = 7;
  r.checked = {"chunks: all 7 read and decoded"};
  return r;
}

TEST_CASE("a sound file reads OK, with what was checked") {
  const std::string text = Text(Sound());
  CHECK(text.starts_with("train.h5: OK: nothing wrong found in 7 chunks (50 images)\n"));
  CHECK(Contains(text, "  checked: chunks: all 7 read and decoded\n"));
  VerificationReport partial = Sound();
  partial.not_checked = {"chunk contents: the file has no checksums"};
  CHECK(Contains(Text(partial), "some things could not be checked (below)"));
  CHECK(Contains(Text(partial), "  not checked: chunk contents"));
  const nlohmann::json json = nlohmann::json::parse(Json(Sound()));
  CHECK(json["ok"] == true);
  CHECK(json["chunks"] == 7);
  CHECK(json["bad_chunks"].empty());
  CHECK(json["encodings"].is_null());  // not a file of images at their own size
}

TEST_CASE("one chunk and one image are counted in the singular, thousands grouped") {
  VerificationReport one = Sound();
  one.chunks = 1;
  one.samples = 1;
  CHECK(Text(one).starts_with("train.h5: OK: nothing wrong found in 1 chunk (1 image)\n"));
  VerificationReport many = Sound();
  many.samples = 2400;
  many.bad_chunks = {{3, 24, 31, "checksum mismatch"}};
  many.bad_images = {{30, 3, "checksum mismatch", ""}};
  CHECK(Text(many).starts_with("train.h5: DAMAGED: 1 of 7 chunks bad (1 of 2,400 images bad)\n"));
}

TEST_CASE("a bad image names its source where the file records one, in the text and the JSON") {
  VerificationReport r = Sound();
  r.bad_chunks = {{3, 24, 31, "checksum mismatch"}};
  r.bad_images = {{30, 3, "checksum mismatch", "cats/0030.jpg"}, {31, 3, "checksum mismatch", ""}};
  const std::string text = Text(r);
  CHECK(Contains(text, "  bad image row 30 (chunk 3, source cats/0030.jpg): checksum mismatch\n"));
  CHECK(Contains(text, "  bad image row 31 (chunk 3): checksum mismatch\n"));
  const nlohmann::json json = nlohmann::json::parse(Json(r));
  CHECK(json["bad_images"][0]["source"] == "cats/0030.jpg");
  CHECK(json["bad_images"][1]["source"].is_null());
}

TEST_CASE("a damaged file lists every bad chunk with its rows in the JSON, 50 in the text") {
  VerificationReport r = Sound();
  for (int64_t c = 0; c < 60; ++c) {
    r.bad_chunks.push_back({c, 8 * c, 8 * c + 7, "checksum mismatch"});
  }
  r.problems = {"label 9 of row 3 is outside the 3 classes"};
  r.warnings = {"opened without HDF5's lock"};
  const std::string text = Text(r);
  CHECK(text.starts_with("train.h5: DAMAGED: 60 of 7 chunks bad, 1 other problem\n"));
  CHECK(Contains(text, "  bad chunk 1 (rows 8-15): checksum mismatch\n"));
  CHECK(Contains(text, "bad chunk 49 "));
  CHECK_FALSE(Contains(text, "bad chunk 50 "));
  CHECK(Contains(text, "  ... 10 more bad chunks (--json lists all)\n"));
  CHECK(Contains(text, "  problem: label 9 of row 3"));
  CHECK(Contains(text, "  warning: opened without HDF5's lock"));
  const nlohmann::json json = nlohmann::json::parse(Json(r));
  CHECK(json["ok"] == false);
  CHECK(json["bad_chunks"].size() == 60);
  CHECK(json["bad_chunks"][1]["first_row"] == 8);
  CHECK(json["bad_chunks"][1]["last_row"] == 15);
}

TEST_CASE("bad images are listed by row and chunk with their reason") {
  VerificationReport r = Sound();
  r.own_size = true;
  r.encodings.Add(ImageEncoding::kJpeg, 50);
  r.images_decoded = 50;
  r.bad_chunks = {{2, 10, 17, "row 12: JPEG: Premature end of JPEG file"}};
  r.bad_images = {{12, 2, "JPEG: Premature end of JPEG file", ""}};
  const std::string text = Text(r);
  CHECK(text.starts_with("train.h5: DAMAGED: 1 of 7 chunks bad (1 of 50 images bad)\n"));
  CHECK(Contains(text, "  bad image row 12 (chunk 2): JPEG: Premature end of JPEG file\n"));
  const nlohmann::json json = nlohmann::json::parse(Json(r));
  CHECK(json["own_size"] == true);
  CHECK(json["encodings"] == nlohmann::json{{"raw", 0}, {"jpeg", 50}});
  CHECK(json["images_decoded"] == 50);
  REQUIRE(json["bad_images"].size() == 1);
  CHECK(json["bad_images"][0]["row"] == 12);
  CHECK(json["bad_images"][0]["chunk"] == 2);
}

TEST_CASE("a file that could not be indexed says so") {
  VerificationReport r;
  r.path = "cut.h5";
  r.problems = {"cut.h5 is truncated"};
  CHECK(Text(r).starts_with("cut.h5: DAMAGED: the file cannot be read as an image file\n"));
  CHECK(nlohmann::json::parse(Json(r))["indexed"] == false);
}

}  // namespace
}  // namespace h5feed::reports
