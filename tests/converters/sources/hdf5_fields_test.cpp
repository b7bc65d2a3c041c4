// The per-row datasets of HDF5 files carried as fields by the source `h5feed rechunk` reads
// (hdf5_fields.h through OpenHdf5), on files h5py writes as its users write them.

#include "sources/hdf5_fields.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "scratch_dir.h"
#include "sources/hdf5_source.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;
using testing::RunPython;
using testing::SampleBuffer;
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

// A CelebA-shaped file of 6 images: attributes (h5py's bool), big-endian landmarks, a caption
// (str), a fixed-length id (numpy "S8", null-padded), a blob (vlen uint8), and datasets that
// cannot be fields: a compound, one of another length, a scalar.
std::string CelebaLike(const std::string& path, const std::string& extra = "") {
  return R"(
import numpy as np, h5py
n = 6
f = h5py.File(")" +
         path + R"(", "w")
f["images"] = np.zeros((n, 4, 4, 3), np.uint8)
f["labels"] = np.arange(n) % 2
f["attrs"] = (np.arange(n * 5).reshape(n, 5) % 3) == 0
f["landmarks"] = (np.arange(n * 6).reshape(n, 2, 3) * 0.5).astype(">f4")
f.create_dataset("caption", data=["row %d caf\u00e9" % i for i in range(n)],
                 dtype=h5py.string_dtype())
f["id"] = np.array([b"id%d" % i for i in range(n)], "S8")
blob = f.create_dataset("blob", (n,), dtype=h5py.vlen_dtype(np.uint8))
for i in range(n):
    blob[i] = np.full(i % 3, i, np.uint8)
f["meta"] = np.zeros(n, [("a", "i4"), ("b", "f4")])
f["other"] = np.zeros(n + 1, np.int32)
f["scalar"] = 3
)" + extra +
         R"(
f.close()
)";
}

std::vector<std::string> Names(const std::vector<FieldSpec>& specs) {
  std::vector<std::string> names;
  for (const FieldSpec& spec : specs) names.push_back(spec.name);
  return names;
}

TEST_CASE("an h5py file's per-row datasets become fields, the others noted") {
  ScratchDir dir;
  RunPython(CelebaLike(dir / "celeba.h5"));
  const auto source = OpenHdf5(dir / "celeba.h5", {});
  const std::vector<FieldSpec> expected = {
      {"attrs", FieldKind::kArray, FieldType::kBool, {5}, {}},
      {"blob", FieldKind::kBytes, FieldType::kUint8, {}, {}},
      {"caption", FieldKind::kText, FieldType::kUint8, {}, {}},
      {"id", FieldKind::kBytes, FieldType::kUint8, {}, {}},
      {"landmarks", FieldKind::kArray, FieldType::kFloat32, {2, 3}, {}}};
  CHECK(source->fields() == expected);
  const std::vector<std::string> notes = source->notes();
  REQUIRE(notes.size() == 3);
  CHECK(Contains(notes[0], "meta"));
  CHECK(Contains(notes[0], "a compound type"));
  CHECK(Contains(notes[1], "other"));
  CHECK(Contains(notes[1], "7 rows, not one per image (6)"));
  CHECK(Contains(notes[2], "scalar"));

  SampleBuffer row;
  for (int64_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    const SampleInfo info = source->Read(i, row);
    REQUIRE(info.fields.size() == 5);
    std::vector<uint8_t> attrs;
    for (int64_t e = 0; e < 5; ++e) attrs.push_back((i * 5 + e) % 3 == 0);
    CHECK(info.fields[0] == attrs);
    CHECK(info.fields[1] == std::vector<uint8_t>(static_cast<size_t>(i % 3), uint8_t(i)));
    CHECK(info.fields[2] == Bytes("row " + std::to_string(i) + " caf\xc3\xa9"));
    CHECK(info.fields[3] == Bytes("id" + std::to_string(i)));
    std::vector<float> landmarks;
    for (int64_t e = 0; e < 6; ++e) landmarks.push_back(0.5f * static_cast<float>(i * 6 + e));
    CHECK(info.fields[4] == LittleEndian(landmarks));
  }
}

TEST_CASE("chosen fields are exactly those, in that order; an empty choice carries none") {
  ScratchDir dir;
  RunPython(CelebaLike(dir / "celeba.h5"));
  Hdf5SourceOptions options;
  options.fields = std::vector<std::string>{"landmarks", "/caption"};
  auto source = OpenHdf5(dir / "celeba.h5", options);
  CHECK(Names(source->fields()) == std::vector<std::string>{"landmarks", "caption"});
  CHECK(source->notes().empty());
  SampleBuffer row;
  CHECK(source->Read(2, row).fields[1] == Bytes("row 2 caf\xc3\xa9"));

  options.fields = std::vector<std::string>{};
  source = OpenHdf5(dir / "celeba.h5", options);
  CHECK(source->fields().empty());
  CHECK(source->Read(2, row).fields.empty());
}

TEST_CASE("a chosen dataset that cannot be a field is refused, naming it") {
  ScratchDir dir;
  RunPython(CelebaLike(dir / "celeba.h5"));
  struct Refused {
    std::vector<std::string> chosen;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Refused> cases = {
      {{"missing"}, ErrorCode::kNotFound, "no dataset missing in"},
      {{"images"}, ErrorCode::kInvalidArgument, "images of"},
      {{"labels"}, ErrorCode::kInvalidArgument, "read as the images or the labels"},
      {{"attrs", "attrs"}, ErrorCode::kInvalidArgument, "field attrs is chosen twice"},
      {{"meta"}, ErrorCode::kUnsupported, "cannot be a field: a compound type"},
      {{"other"}, ErrorCode::kInvalidArgument, "7 rows, not one per image (6)"}};
  for (const Refused& refused : cases) {
    CAPTURE(refused.message);
    Hdf5SourceOptions options;
    options.fields = refused.chosen;
    const Error error = CaughtError([&] { OpenHdf5(dir / "celeba.h5", options); });
    CHECK(error.code() == refused.code);
    CHECK(Contains(error.what(), refused.message));
  }
}

TEST_CASE("a per-row dataset no field may be named as stops the default, suggesting a choice") {
  ScratchDir dir;
  RunPython(CelebaLike(dir / "celeba.h5", "f[\"indices\"] = np.arange(n)"));
  const Error error = CaughtError([&] { OpenHdf5(dir / "celeba.h5", {}); });
  CHECK(error.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(error.what(), "indices (int64 (6,)):"));
  CHECK(Contains(error.what(), "--field NAME"));
  CHECK(Contains(error.what(), "--no-fields"));
  // Choosing leaves it behind.
  Hdf5SourceOptions options;
  options.fields = std::vector<std::string>{"attrs"};
  CHECK(Names(OpenHdf5(dir / "celeba.h5", options)->fields()) == std::vector<std::string>{"attrs"});
}

TEST_CASE("an h5feed file's fields come in its order, and a file without labels gives none") {
  ScratchDir dir;
  const std::string path = dir / "written.h5";
  WriterOptions options;
  options.image_shape = {2, 2, 1};
  options.chunk_images = 4;
  options.fields = {{"zeta", FieldKind::kArray, FieldType::kInt16, {}, {}},
                    {"alpha", FieldKind::kText, FieldType::kUint8, {}, {}}};
  options.labelled = false;
  Writer writer = Writer::Create(path, options);
  const std::vector<uint8_t> pixels(3 * 4, 7);
  std::vector<FieldColumn> columns(2);
  for (int16_t i = 0; i < 3; ++i) {
    columns[0].Append(LittleEndian(std::vector<int16_t>{static_cast<int16_t>(-i)}));
    columns[1].Append(Bytes("text " + std::to_string(i)));
  }
  writer.Append(writer.Encode(pixels, 3));
  writer.AppendFields(columns);
  DatasetDescription description;
  description.source_kind = "npy";
  description.sources = {"a", "b", "c"};
  writer.Finish(description);

  const auto source = OpenHdf5(path, {});
  CHECK(!source->labelled());
  CHECK(source->fields() == options.fields);
  CHECK(source->notes().empty());  // field_checksums/* are the file's own
  SampleBuffer row;
  const SampleInfo info = source->Read(2, row);
  CHECK(info.fields[0] == LittleEndian(std::vector<int16_t>{-2}));
  CHECK(info.fields[1] == Bytes("text 2"));
}

}  // namespace
}  // namespace h5feed::converters
