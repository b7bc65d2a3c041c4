#include "h5feed/compression.h"

#include <doctest/doctest.h>

#include <string>

#include "enum_names.h"
#include "h5feed/error.h"

namespace h5feed {
namespace {

using Kind = Compression::Kind;

ErrorCode CodeOf(std::string_view text) {
  try {
    Compression::Parse(text);
  } catch (const Error& error) {
    return error.code();
  }
  FAIL("parsing \"" << text << "\" did not throw");
  return ErrorCode::kInternal;
}

TEST_CASE("every documented form parses to its kind and level") {
  CHECK(Compression::Parse("none") == Compression{Kind::kNone, 0});
  CHECK(Compression::Parse("zstd") == Compression{Kind::kZstd, 3});
  CHECK(Compression::Parse("zstd:1") == Compression{Kind::kZstd, 1});
  CHECK(Compression::Parse("zstd:19") == Compression{Kind::kZstd, 19});
  CHECK(Compression::Parse("zstd:22") == Compression{Kind::kZstd, 22});
  CHECK(Compression::Parse("gzip") == Compression{Kind::kDeflate, 6});
  CHECK(Compression::Parse("gzip:9") == Compression{Kind::kDeflate, 9});
  CHECK(Compression::Parse("deflate:4") == Compression{Kind::kDeflate, 4});
  CHECK(Compression::Parse("ZSTD:5") == Compression{Kind::kZstd, 5});
}

TEST_CASE("ToString is the inverse of Parse") {
  for (const char* text : {"none", "zstd:3", "zstd:19", "gzip:1", "gzip:6"}) {
    CHECK(Compression::Parse(text).ToString() == text);
  }
  CHECK(Compression::Parse("deflate").ToString() == "gzip:6");
  CHECK(Compression{}.ToString() == "zstd:3");
}

TEST_CASE("malformed or out-of-range forms are invalid arguments that list the accepted ones") {
  for (const char* text : {"", "lz4", "zstd:", "zstd:0", "zstd:23", "zstd:-1", "zstd:3x", "gzip:0",
                           "gzip:10", "none:1", "zstd:3:4"}) {
    CAPTURE(text);
    CHECK(CodeOf(text) == ErrorCode::kInvalidArgument);
  }
  try {
    Compression::Parse("lz4");
  } catch (const Error& error) {
    std::string message = error.what();
    CHECK(message.find("\"lz4\"") != std::string::npos);
    CHECK(message.find("zstd:LEVEL") != std::string::npos);
    CHECK(message.find("gzip:LEVEL") != std::string::npos);
  }
}

TEST_CASE("each kind's word in the table parses to it; a synonym gives the first word back") {
  for (const NamedValue<Kind>& entry : EnumNames<Kind>::names) {
    CAPTURE(entry.name);
    CHECK(Compression::Parse(entry.name).kind == entry.value);
  }
  CHECK(Compression::Parse("DEFLATE:4").ToString() == "gzip:4");
}

}  // namespace
}  // namespace h5feed
