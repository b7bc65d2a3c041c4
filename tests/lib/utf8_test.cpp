#include "utf8.h"

#include <doctest/doctest.h>

#include <string>

namespace h5feed {
namespace {

TEST_CASE("valid UTF-8 is kept as it is, every other byte is written as \\xNN") {
  CHECK(EscapeInvalidUtf8("class_000/img_1.jpg") == "class_000/img_1.jpg");
  CHECK(EscapeInvalidUtf8("caf\xc3\xa9/\xe6\x97\xa5.png") == "caf\xc3\xa9/\xe6\x97\xa5.png");
  // Latin-1 'é' alone, and two bytes that start no sequence: as Python's backslashreplace.
  CHECK(EscapeInvalidUtf8("cl\xe9ss") == "cl\\xe9ss");
  CHECK(EscapeInvalidUtf8("bad\xff\xfename.jpg") == "bad\\xff\\xfename.jpg");
  // A sequence cut short, an overlong form and a surrogate are not UTF-8 either.
  CHECK(EscapeInvalidUtf8("a\xe6\x97") == "a\\xe6\\x97");
  CHECK(EscapeInvalidUtf8("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(EscapeInvalidUtf8("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(EscapeInvalidUtf8("") == "");
}

}  // namespace
}  // namespace h5feed
