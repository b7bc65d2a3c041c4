#include "h5feed/field.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed {
namespace {

using testing::CaughtError;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a field spec says its row's bytes and describes itself as numpy would") {
  const FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kUint8, {40}, {}};
  CHECK(attrs.row_bytes() == 40);
  CHECK(attrs.Describe() == "uint8[40]");
  const FieldSpec landmarks{"landmarks", FieldKind::kArray, FieldType::kFloat32, {5, 2}, {}};
  CHECK(landmarks.row_bytes() == 40);
  CHECK(landmarks.Describe() == "float32[5,2]");
  const FieldSpec target{"target", FieldKind::kArray, FieldType::kFloat64, {}, {}};
  CHECK(target.row_bytes() == 8);
  CHECK(target.Describe() == "float64");
  const FieldSpec caption{"caption", FieldKind::kText, FieldType::kUint8, {}, {}};
  CHECK(caption.row_bytes() == 0);
  CHECK(caption.Describe() == "text");
}

TEST_CASE("every field type has numpy's name, parsed back in any case") {
  for (FieldType type : {FieldType::kBool, FieldType::kInt8, FieldType::kUint64,
                         FieldType::kFloat16, FieldType::kFloat64}) {
    CHECK(ParseFieldType(ToString(type)) == type);
  }
  CHECK(ParseFieldType("FLOAT32") == FieldType::kFloat32);
  CHECK(ElementBytes(FieldType::kBool) == 1);
  CHECK(ElementBytes(FieldType::kFloat16) == 2);
  CHECK(ElementBytes(FieldType::kUint64) == 8);
  CHECK(ParseFieldKind("text") == FieldKind::kText);
  const Error e = CaughtError([] { ParseFieldType("complex64"); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(Contains(e.what(), "float32"));
}

// A bytes or text field's spec: its name and kind say it all.
FieldSpec Named(const std::string& name, FieldKind kind) {
  FieldSpec spec;
  spec.name = name;
  spec.kind = kind;
  return spec;
}

TEST_CASE("a field named like the file's own datasets, or badly, is refused with the reason") {
  for (const char* name : {"images", "labels", "indices", "row_checksums", "field_checksums"}) {
    const Error e = CaughtError([&] { CheckFieldSpec(Named(name, FieldKind::kBytes)); });
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(Contains(e.what(), std::string("\"") + name + "\""));
    CHECK(Contains(e.what(), "Reserved: images, labels"));
  }
  CHECK(Contains(CaughtError([] { CheckFieldSpec(Named("", FieldKind::kText)); }).what(), "name"));
  CHECK(
      Contains(CaughtError([] { CheckFieldSpec(Named("a/b", FieldKind::kText)); }).what(), "'/'"));
  CHECK(Contains(CaughtError([] { CheckFieldSpec(Named(".", FieldKind::kText)); }).what(), "root"));
  CHECK_NOTHROW(CheckFieldSpec(Named("..", FieldKind::kText)));  // an ordinary name to HDF5
  const Error zero = CaughtError([] {
    CheckFieldSpec({"x", FieldKind::kArray, FieldType::kUint8, {3, 0}, {}});
  });
  CHECK(Contains(zero.what(), "uint8[3,0]"));
  CHECK_THROWS_AS(
      CheckFieldSpec({"x", FieldKind::kArray, FieldType::kUint64, {1 << 20, 1 << 20}, {}}), Error);
  CHECK_NOTHROW(CheckFieldSpec({"attrs", FieldKind::kArray, FieldType::kBool, {40}, {}}));
}

TEST_CASE("masks, boxes and box labels are stored as arrays or bytes and take their types") {
  FieldSpec mask{"mask", FieldKind::kMask, FieldType::kUint16, {60, 80}, {}};
  CHECK(StoredKind(mask) == FieldKind::kArray);
  CHECK(mask.row_bytes() == 60 * 80 * 2);
  CHECK(mask.Describe() == "mask uint16[60,80]");
  mask.shape.clear();  // a file of images at their own size: each row its image's size
  CHECK(StoredKind(mask) == FieldKind::kBytes);
  CHECK(mask.row_bytes() == 0);
  CHECK_NOTHROW(CheckFieldSpec(mask));
  mask.type = FieldType::kFloat32;
  CHECK_THROWS_AS(CheckFieldSpec(mask), Error);
  const FieldSpec boxes{"boxes", FieldKind::kBoxes, FieldType::kFloat32, {}, {}};
  CHECK(StoredKind(boxes) == FieldKind::kBytes);
  CHECK_NOTHROW(CheckFieldSpec(boxes));
  FieldSpec labels{"box_labels", FieldKind::kBoxLabels, FieldType::kInt64, {}, {}};
  CHECK_THROWS_AS(CheckFieldSpec(labels), Error);  // names no boxes field
  labels.boxes = "boxes";
  CHECK_NOTHROW(CheckFieldSpec(labels));
  CHECK(labels.Describe() == "box_labels of boxes");
  CHECK(ParseFieldKind("box_labels") == FieldKind::kBoxLabels);
  // Per-box values: any element type, one per box (a scalar), of a named boxes field.
  FieldSpec iscrowd{"iscrowd", FieldKind::kBoxValues, FieldType::kUint8, {}, {}};
  CHECK_THROWS_AS(CheckFieldSpec(iscrowd), Error);  // names no boxes field
  iscrowd.boxes = "boxes";
  CHECK_NOTHROW(CheckFieldSpec(iscrowd));
  CHECK(StoredKind(iscrowd) == FieldKind::kBytes);
  CHECK(iscrowd.Describe() == "box_values uint8 of boxes");
  CHECK(BoxValueBytes(iscrowd) == 1);
  iscrowd.type = FieldType::kFloat64;
  CHECK(BoxValueBytes(iscrowd) == 8);
  CHECK(BoxValueBytes(labels) == 8);
  CHECK(BoxValueBytes(boxes) == 16);
  CHECK(ParseFieldKind("box_values") == FieldKind::kBoxValues);
  CHECK(IsGeometric(FieldKind::kBoxValues));
  CHECK((IsPerBox(FieldKind::kBoxValues) && IsPerBox(FieldKind::kBoxLabels)));
  CHECK(!IsPerBox(FieldKind::kBoxes));
  iscrowd.shape = {2};
  CHECK(std::string(CaughtError([&] { CheckFieldSpec(iscrowd); }).what()).find("has a shape") !=
        std::string::npos);
  labels.type = FieldType::kInt32;  // box labels stay int64
  CHECK_THROWS_AS(CheckFieldSpec(labels), Error);
  CHECK(IsGeometric(FieldKind::kMask));
  CHECK(!IsGeometric(FieldKind::kArray));
  FieldSpec attrs{"attrs", FieldKind::kArray, FieldType::kUint8, {4}, {}};
  attrs.boxes = "boxes";
  CHECK_THROWS_AS(CheckFieldSpec(attrs), Error);
}

TEST_CASE("a column keeps its rows in order, of any length, and appends another") {
  FieldColumn column;
  const std::vector<uint8_t> a = {1, 2, 3};
  const std::vector<uint8_t> empty;
  column.Append(a);
  column.Append(empty);
  FieldColumn more;
  more.Append(std::vector<uint8_t>{9});
  column.Append(more);
  REQUIRE(column.rows() == 3);
  CHECK(std::vector<uint8_t>(column.row(0).begin(), column.row(0).end()) == a);
  CHECK(column.row(1).empty());
  CHECK(column.row(2)[0] == 9);
  CHECK(column.begin(2) == 3);
  CHECK(column.end(2) == 4);
}

}  // namespace
}  // namespace h5feed
