// NumPy arrays carried as fields of `h5feed convert npy` (npy_fields.h), on files numpy saves.

#include "sources/npy_fields.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;
using testing::RunPython;
using testing::ScratchDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

template <typename T>
std::vector<uint8_t> LittleEndian(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Saves array `expression` (numpy as np, n = 4 rows) as `path`.
void Save(const std::string& path, const std::string& expression) {
  RunPython("import numpy as np; n = 4; np.save(\"" + path + "\", " + expression + ")");
}

TEST_CASE("numeric arrays of any byte order, byte strings and str become fields row by row") {
  ScratchDir dir;
  Save(dir / "attrs.npy", "np.arange(n * 3).reshape(n, 3) % 2 == 0");
  Save(dir / "points.npy", "np.arange(n * 4, dtype=\">i2\").reshape(n, 2, 2) - 5");
  Save(dir / "score.npy", "np.arange(n, dtype=np.float16) / 4");
  Save(dir / "id.npy", "np.array([b\"a\", b\"bb\", b\"\", b\"dddd\"])");
  Save(dir / "caption.npy", "np.array([\"x\", \"caf\\u00e9\", \"\", \"\\U0001F600!\"])");
  const NpyFields fields({{"attrs", dir / "attrs.npy"},
                          {"points", dir / "points.npy"},
                          {"score", dir / "score.npy"},
                          {"id", dir / "id.npy"},
                          {"caption", dir / "caption.npy"}},
                         4);
  const std::vector<FieldSpec> expected = {
      {"attrs", FieldKind::kArray, FieldType::kBool, {3}, {}},
      {"points", FieldKind::kArray, FieldType::kInt16, {2, 2}, {}},
      {"score", FieldKind::kArray, FieldType::kFloat16, {}, {}},
      {"id", FieldKind::kBytes, FieldType::kUint8, {}, {}},
      {"caption", FieldKind::kText, FieldType::kUint8, {}, {}}};
  CHECK(fields.specs() == expected);

  const std::vector<std::string> ids = {"a", "bb", "", "dddd"};
  const std::vector<std::string> captions = {"x", "caf\xc3\xa9", "", "\xf0\x9f\x98\x80!"};
  const std::vector<uint16_t> quarters = {0x0000, 0x3400, 0x3800, 0x3A00};  // 0, .25, .5, .75
  for (int64_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const std::vector<std::vector<uint8_t>> values = fields.Read(i);
    REQUIRE(values.size() == 5);
    std::vector<uint8_t> attrs;
    for (int64_t e = 0; e < 3; ++e) attrs.push_back((i * 3 + e) % 2 == 0);
    CHECK(values[0] == attrs);
    std::vector<int16_t> points;
    for (int64_t e = 0; e < 4; ++e) points.push_back(static_cast<int16_t>(i * 4 + e - 5));
    CHECK(values[1] == LittleEndian(points));
    CHECK(values[2] == LittleEndian(std::vector<uint16_t>{quarters[static_cast<size_t>(i)]}));
    CHECK(values[3] == Bytes(ids[static_cast<size_t>(i)]));
    CHECK(values[4] == Bytes(captions[static_cast<size_t>(i)]));
  }
}

TEST_CASE("an array that cannot be a field is refused, naming its file and the field") {
  ScratchDir dir;
  Save(dir / "short.npy", "np.zeros(n - 1, np.uint8)");
  Save(dir / "complex.npy", "np.zeros(n, np.complex64)");
  Save(dir / "names2d.npy", "np.zeros((n, 2), \"S3\")");
  Save(dir / "fortran.npy", "np.asfortranarray(np.zeros((n, 2, 3), np.uint8))");
  Save(dir / "ok.npy", "np.zeros(n, np.uint8)");
  struct Refused {
    std::vector<NpyFieldFile> files;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Refused> cases = {
      {{{"s", dir / "short.npy"}}, ErrorCode::kInvalidArgument, "its first dimension must be 4"},
      {{{"c", dir / "complex.npy"}}, ErrorCode::kUnsupported, "(field c) holds <c8"},
      {{{"t", dir / "names2d.npy"}}, ErrorCode::kUnsupported, "(field t) holds |S3 (4, 2)"},
      {{{"f", dir / "fortran.npy"}}, ErrorCode::kUnsupported, "Fortran order"},
      {{{"labels", dir / "ok.npy"}}, ErrorCode::kInvalidArgument, "labels"},
      {{{"a", dir / "ok.npy"}, {"a", dir / "ok.npy"}},
       ErrorCode::kInvalidArgument,
       "field a is given twice"},
      {{{"m", dir / "missing.npy"}}, ErrorCode::kNotFound, "missing.npy"}};
  for (const Refused& refused : cases) {
    CAPTURE(refused.message);
    const Error error = CaughtError([&] { NpyFields(refused.files, 4); });
    CHECK(error.code() == refused.code);
    CHECK(Contains(error.what(), refused.message));
  }
}

}  // namespace
}  // namespace h5feed::converters
