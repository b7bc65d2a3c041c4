#include "sources/json_without_key.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "scratch_dir.h"

namespace h5feed::converters {
namespace {

using testing::ScratchDir;
using testing::WriteText;

nlohmann::json Parsed(const ScratchDir& dir, const std::string& text) {
  WriteText(dir.path() + "/in.json", text);
  return ParseJsonWithout(dir.path() + "/in.json", "segmentation");
}

TEST_CASE("members of the dropped name are left out at any depth, whatever their value") {
  ScratchDir dir;
  const nlohmann::json parsed = Parsed(dir, R"({
      "segmentation": 1,
      "a": [{"segmentation": [[1, 2], [3, {"segmentation": 4}]], "bbox": [1, 2, 3, 4]},
            {"bbox": [5], "segmentation": {"counts": "PPYo0", "size": [4, 3]}, "id": 7},
            {"segmentation": "text", "id": 8}, {"segmentation": null, "x": true}],
      "b": {"c": [], "d": {}, "segmentation": [], "e": -1.5, "f": 18446744073709551615}})");
  const nlohmann::json expected = nlohmann::json::parse(R"({
      "a": [{"bbox": [1, 2, 3, 4]}, {"bbox": [5], "id": 7}, {"id": 8}, {"x": true}],
      "b": {"c": [], "d": {}, "e": -1.5, "f": 18446744073709551615}})");
  CHECK(parsed == expected);
}

TEST_CASE("values other than objects parse as they are") {
  ScratchDir dir;
  CHECK(Parsed(dir, "[1, \"segmentation\", 2]") ==
        nlohmann::json::parse("[1, \"segmentation\", 2]"));
  CHECK(Parsed(dir, " 3 ") == nlohmann::json(3));
  CHECK(Parsed(dir, "\xEF\xBB\xBF{\"x\": 1}") == nlohmann::json::parse("{\"x\": 1}"));
}

TEST_CASE("text that is not JSON is an error naming the file and where it stops") {
  ScratchDir dir;
  for (const std::string text : {"", "{\"a\": [1, 2", "{\"segmentation\": [1, 2}", "[NaN]"}) {
    try {
      Parsed(dir, text);
      FAIL("parsed: " << text);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kCorrupt);
      CHECK(std::string(e.what()).find("in.json is not valid JSON") != std::string::npos);
      CHECK(std::string(e.what()).find("line 1, column") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(ParseJsonWithout(dir.path() + "/none.json", "segmentation"), Error);
}

}  // namespace
}  // namespace h5feed::converters
