// The words of the public enums (lib/enum_names.h): every value has one, the public ToString
// and Parse functions are each other's inverse, Parse ignores case, and a word that is not
// one is refused with every accepted word listed.

#include "enum_names.h"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "h5feed/file_locking.h"
#include "h5feed/loader_options.h"
#include "h5feed/output_options.h"
#include "h5feed/sampler_options.h"
#include "h5feed/stored_layout.h"

namespace h5feed {
namespace {

// Every value of an enum whose values are 0 .. last.
template <typename Enum>
std::vector<Enum> ValuesUpTo(Enum last) {
  std::vector<Enum> values;
  for (int i = 0; i <= static_cast<int>(last); ++i) values.push_back(static_cast<Enum>(i));
  return values;
}

// Each value's word is its own (no two values share one) and parses back to it, in any case.
template <typename Enum, typename Parse>
void CheckRoundTrip(Enum last, Parse parse) {
  std::set<std::string> seen;
  for (Enum value : ValuesUpTo(last)) {
    const std::string word(ToString(value));
    CAPTURE(word);
    CHECK(!word.empty());
    CHECK(seen.insert(word).second);
    CHECK(parse(word) == value);
    std::string upper = word;
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    CHECK(parse(upper) == value);
  }
}

// The refusal of `text`: kInvalidArgument, naming the setting, the text, and every word.
template <typename Parse>
void CheckRefusal(Parse parse, std::string_view text, std::string_view what,
                  std::string_view words) {
  CAPTURE(text);
  try {
    parse(text);
    FAIL("parsed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find(what) == 0);
    CHECK(message.find("\"" + std::string(text) + "\"") != std::string::npos);
    CHECK(message.find(words) != std::string::npos);
  }
}

TEST_CASE("every value of every public enum has a word that parses back to it") {
  CheckRoundTrip(ErrorCode::kInternal, ParseErrorCode);
  CheckRoundTrip(FileLocking::kOff, ParseFileLocking);
  CheckRoundTrip(EvictionPolicy::kLru, ParseEvictionPolicy);
  CheckRoundTrip(ElementType::kBFloat16, ParseElementType);
  CheckRoundTrip(Layout::kNHWC, ParseLayout);
  CheckRoundTrip(StoredLayout::kFlat, ParseName<StoredLayout>);
}

TEST_CASE("the words are those the command line, Python and the docs use") {
  CHECK(ToString(ErrorCode::kIo) == "I/O error");
  CHECK(ToString(FileLocking::kAuto) == "auto");
  CHECK(ToString(EvictionPolicy::kBelady) == "belady");
  CHECK(ToString(ElementType::kBFloat16) == "bfloat16");
  CHECK(ToString(Layout::kNHWC) == "NHWC");
  CHECK(ParseLayout("nchw") == Layout::kNCHW);
  CHECK(ToString(StoredLayout::kNHW) == "NHW");
  CHECK(ToString(StoredLayout::kFlat) == "flat");
}

TEST_CASE("a word that is not one is refused with every accepted word listed") {
  CheckRefusal(ParseFileLocking, "maybe", "file locking", "auto, on, off");
  CheckRefusal(ParseFileLocking, "", "file locking", "auto, on, off");
  CheckRefusal(ParseFileLocking, " on", "file locking", "auto, on, off");
  CheckRefusal(ParseEvictionPolicy, "fifo", "eviction policy", "belady, lru");
  CheckRefusal(ParseElementType, "float64", "element type",
               "uint8, int64, float32, float16, bfloat16");
  CheckRefusal(ParseLayout, "CHW", "layout", "NCHW, NHWC");
  CheckRefusal(ParseErrorCode, "oops", "error code", "invalid argument, not found");
}

TEST_CASE("a synonym names its value, whose word is the first one") {
  CHECK(FindName<Compression::Kind>("DEFLATE") == Compression::Kind::kDeflate);
  CHECK(NameOf(Compression::Kind::kDeflate) == "gzip");
}

TEST_CASE("a value outside its enum has no word and FindName finds none for a stranger") {
  CHECK(NameOf(static_cast<FileLocking>(99)).empty());
  CHECK(!FindName<FileLocking>("of"));
  CHECK(FindName<FileLocking>("Off") == FileLocking::kOff);
}

}  // namespace
}  // namespace h5feed
