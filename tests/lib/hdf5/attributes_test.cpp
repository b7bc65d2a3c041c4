#include "hdf5/attributes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

struct Fixture {
  testing::TempFolder folder;
  File file{H5Fcreate((folder / "attributes.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};
};

using testing::CodeOf;

TEST_CASE("integer and string attributes read back as written") {
  Fixture f;
  const hid_t root = f.file.get();
  WriteAttribute(root, "version", int32_t{1});
  WriteAttribute(root, "count", int64_t{-5'000'000'000});
  WriteAttribute(root, "seed", uint64_t{0xFEDCBA9876543210ULL});
  WriteAttribute(root, "layout", std::string_view("NHWC"));
  WriteAttribute(root, "unicode", std::string_view("café, 東京"));
  WriteAttribute(root, "empty", std::string_view(""));
  CHECK(ReadInt64Attribute(root, "version") == 1);
  CHECK(ReadInt64Attribute(root, "count") == -5'000'000'000);
  CHECK(ReadAttributeText(root, "seed") == "18364758544493064720");  // 0xFEDCBA9876543210
  CHECK(ReadStringAttribute(root, "layout") == "NHWC");
  CHECK(ReadStringAttribute(root, "unicode") == "café, 東京");
  CHECK(ReadStringAttribute(root, "empty") == "");
  CHECK(HasAttribute(root, "layout"));
  CHECK(!HasAttribute(root, "absent"));
}

TEST_CASE("attributes are stored little-endian and strings as variable-length UTF-8") {
  Fixture f;
  const hid_t root = f.file.get();
  WriteAttribute(root, "seed", uint64_t{7});
  WriteAttribute(root, "layout", std::string_view("NHWC"));
  auto lock = Lock();
  Attribute seed(H5Aopen(root, "seed", H5P_DEFAULT));
  Datatype seed_type(H5Aget_type(seed.get()));
  CHECK(H5Tequal(seed_type.get(), H5T_STD_U64LE) > 0);
  Attribute layout(H5Aopen(root, "layout", H5P_DEFAULT));
  Datatype layout_type(H5Aget_type(layout.get()));
  CHECK(H5Tis_variable_str(layout_type.get()) > 0);
  CHECK(H5Tget_cset(layout_type.get()) == H5T_CSET_UTF8);
}

TEST_CASE("writing an attribute again replaces it, even with another type") {
  Fixture f;
  const hid_t root = f.file.get();
  WriteAttribute(root, "x", int32_t{1});
  WriteAttribute(root, "x", std::string_view("now a string"));
  CHECK(ReadStringAttribute(root, "x") == "now a string");
}

TEST_CASE("a missing attribute is kNotFound; one of the wrong kind or range is kCorrupt") {
  Fixture f;
  const hid_t root = f.file.get();
  WriteAttribute(root, "text", std::string_view("abc"));
  WriteAttribute(root, "negative", int64_t{-1});
  WriteAttribute(root, "huge", uint64_t{1} << 63);
  CHECK(CodeOf([&] { ReadInt64Attribute(root, "absent"); }) == ErrorCode::kNotFound);
  CHECK(CodeOf([&] { ReadStringAttribute(root, "absent"); }) == ErrorCode::kNotFound);
  CHECK(CodeOf([&] { ReadInt64Attribute(root, "text"); }) == ErrorCode::kCorrupt);
  CHECK(CodeOf([&] { ReadStringAttribute(root, "negative"); }) == ErrorCode::kCorrupt);
  CHECK(CodeOf([&] { ReadInt64Attribute(root, "huge"); }) == ErrorCode::kCorrupt);
  const Error error = testing::CaughtError([&] { ReadInt64Attribute(root, "absent"); });
  CHECK(std::string(error.what()).find("attribute \"absent\" of / in ") != std::string::npos);
  CHECK(std::string(error.what()).find("attributes.h5") != std::string::npos);
}

TEST_CASE("fixed-length string and 8-bit integer attributes written by others read too") {
  Fixture f;
  const hid_t root = f.file.get();
  auto lock = Lock();
  Dataspace scalar(H5Screate(H5S_SCALAR));
  Datatype fixed(H5Tcopy(H5T_C_S1));
  H5Tset_size(fixed.get(), 8);
  H5Tset_strpad(fixed.get(), H5T_STR_NULLPAD);
  {
    Attribute a(H5Acreate2(root, "fixed", fixed.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
    const char value[8] = {'N', 'C', 'H', 'W', 0, 0, 0, 0};
    REQUIRE(H5Awrite(a.get(), fixed.get(), value) >= 0);
    Attribute b(H5Acreate2(root, "small", H5T_STD_U8LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
    const uint8_t small = 200;
    REQUIRE(H5Awrite(b.get(), H5T_NATIVE_UINT8, &small) >= 0);
  }
  CHECK(ReadStringAttribute(root, "fixed") == "NCHW");
  CHECK(ReadInt64Attribute(root, "small") == 200);
}

}  // namespace
}  // namespace h5feed::hdf5
