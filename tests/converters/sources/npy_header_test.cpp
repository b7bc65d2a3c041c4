#include "sources/npy_header.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::converters {
namespace {

// A .npy preamble and header as numpy.lib.format writes it: magic, version, header length
// (2 bytes in 1.0, 4 after), the dict padded with spaces and '\n' to a 64-byte boundary.
std::vector<uint8_t> NpyBytes(const std::string& dict, int major = 1) {
  size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) {
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  }
  bytes.insert(bytes.end(), header.begin(), header.end());
  return bytes;
}

TEST_CASE("a version 1.0 header gives dtype, order, shape and the data offset") {
  auto bytes = NpyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (60000, 32, 32, 3), }");
  NpyHeader header = ParseNpyHeader(bytes, "x.npy");
  CHECK(header.dtype.descr == "|u1");
  CHECK(header.dtype.kind == 'u');
  CHECK(header.dtype.item_bytes == 1);
  CHECK_FALSE(header.fortran_order);
  CHECK(header.shape == std::vector<int64_t>{60000, 32, 32, 3});
  CHECK(header.data_offset == 128);
  CHECK(header.data_offset == static_cast<int64_t>(bytes.size()));
  CHECK(header.elements() == 60000 * 32 * 32 * 3);
  CHECK(header.ShapeText() == "(60000, 32, 32, 3)");
}

TEST_CASE("version 2.0 and 3.0 headers have a 4-byte length") {
  for (int major : {2, 3}) {
    auto bytes = NpyBytes("{'descr': '>i8', 'fortran_order': True, 'shape': (7,), }", major);
    NpyHeader header = ParseNpyHeader(bytes, "x.npy");
    CHECK(header.dtype.big_endian);
    CHECK(header.dtype.item_bytes == 8);
    CHECK(header.dtype.is_integer());
    CHECK(header.fortran_order);
    CHECK(header.shape == std::vector<int64_t>{7});
    CHECK(header.ShapeText() == "(7,)");
    CHECK(header.data_offset % 64 == 0);
  }
}

TEST_CASE("keys in any order, double quotes, a 0-d shape and Python 2 longs are read") {
  auto bytes = NpyBytes("{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f4\"}");
  NpyHeader header = ParseNpyHeader(bytes, "x.npy");
  CHECK(header.shape.empty());
  CHECK(header.elements() == 1);
  CHECK(header.dtype.kind == 'f');
  CHECK_FALSE(header.dtype.is_integer());

  auto old = NpyBytes("{'descr': '<u2', 'fortran_order': False, 'shape': (10L, 3L), }");
  CHECK(ParseNpyHeader(old, "old.npy").shape == std::vector<int64_t>{10, 3});
}

TEST_CASE("a structured dtype is unsupported") {
  auto bytes = NpyBytes(
      "{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, "
      "'shape': (3,), }");
  try {
    ParseNpyHeader(bytes, "rec.npy");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("structured") != std::string::npos);
  }
}

TEST_CASE("files that are not .npy, cut short, of unknown version or malformed are refused") {
  auto expect = [](const std::vector<uint8_t>& bytes, ErrorCode code, const char* text) {
    try {
      ParseNpyHeader(bytes, "bad.npy");
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == code);
      CHECK(std::string(e.what()).find(text) != std::string::npos);
      CHECK(std::string(e.what()).find("bad.npy") != std::string::npos);
    }
  };
  expect({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, ErrorCode::kCorrupt, "not a .npy file");
  expect({}, ErrorCode::kCorrupt, "not a .npy file");

  auto good = NpyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }");
  expect(std::vector<uint8_t>(good.begin(), good.begin() + 40), ErrorCode::kCorrupt, "truncated");

  auto v4 = good;
  v4[6] = 4;
  expect(v4, ErrorCode::kUnsupported, "version 4.0");

  expect(NpyBytes("{'descr': '|u1', 'fortran_order': Maybe, 'shape': (2,), }"), ErrorCode::kCorrupt,
         "True or False");
  expect(NpyBytes("{'descr': '|u1', 'shape': (2,), }"), ErrorCode::kCorrupt, "lacks");
  expect(NpyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
         ErrorCode::kCorrupt, "unknown key");
  expect(NpyBytes("{'descr': '|u1', 'fortran_order': False, "
                  "'shape': (9223372036854775807, 4), }"),
         ErrorCode::kCorrupt, "impossible shape");
}

TEST_CASE("integers are read in either byte order and sign-extended") {
  NpyDtype big_i2{">i2", 'i', 2, true};
  const uint8_t minus_two[] = {0xff, 0xfe};
  CHECK(ReadNpyInteger(minus_two, big_i2) == -2);

  NpyDtype little_i2{"<i2", 'i', 2, false};
  const uint8_t little[] = {0x34, 0x12};
  CHECK(ReadNpyInteger(little, little_i2) == 0x1234);

  NpyDtype u4{"<u4", 'u', 4, false};
  const uint8_t max_u4[] = {0xff, 0xff, 0xff, 0xff};
  CHECK(ReadNpyInteger(max_u4, u4) == 4294967295LL);

  NpyDtype i1{"|i1", 'i', 1, false};
  const uint8_t minus_one[] = {0xff};
  CHECK(ReadNpyInteger(minus_one, i1) == -1);

  NpyDtype big_i8{">i8", 'i', 8, true};
  const uint8_t big_value[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  CHECK(ReadNpyInteger(big_value, big_i8) == 0x0102030405060708LL);

  NpyDtype u8{"<u8", 'u', 8, false};
  const uint8_t huge[] = {0, 0, 0, 0, 0, 0, 0, 0x80};
  CHECK_THROWS_AS(ReadNpyInteger(huge, u8), Error);
  const uint8_t int64_max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  CHECK(ReadNpyInteger(int64_max, u8) == std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace h5feed::converters
