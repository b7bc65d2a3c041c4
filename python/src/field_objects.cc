#include "field_objects.h"

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dlpack_capsule.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

// `tensor` pointed at a copy of its bytes, whose owner is returned: for a host tensor of a type
// DLPack carries as it is. Others need none (null): a device tensor stays the stage's, and
// uint16 and uint32 values are widened into an array of their own (dlpack_capsule.h).
std::shared_ptr<const void> CopiedOnHost(FieldTensor& tensor) {
  if (tensor.cuda_device >= 0 || tensor.type == FieldType::kUint16 ||
      tensor.type == FieldType::kUint32)
    return nullptr;
  const auto* bytes = static_cast<const uint8_t*>(tensor.data);
  auto copy = std::make_shared<const std::vector<uint8_t>>(
      bytes, bytes + static_cast<size_t>(tensor.elements()) * ElementBytes(tensor.type));
  tensor.data = copy->data();
  return copy;
}

}  // namespace

std::vector<PendingField> ReadFields(const Batch& batch) {
  std::vector<PendingField> fields(static_cast<size_t>(batch.fields()));
  for (int k = 0; k < batch.fields(); ++k) {
    PendingField& field = fields[static_cast<size_t>(k)];
    const FieldKind kind = batch.field_spec(k).kind;
    if (IsGeometric(kind)) {
      for (int v = 0; v < batch.views(); ++v) {
        field.views.push_back(batch.field_tensor(k, v));
        field.view_copies.push_back(CopiedOnHost(field.views.back()));
        if (kind != FieldKind::kBoxes) continue;
        field.counts.push_back(batch.box_counts(k, v));
        field.count_copies.push_back(CopiedOnHost(field.counts.back()));
      }
      continue;
    }
    if (kind == FieldKind::kArray) {
      field.array = batch.field_tensor(k);
      continue;
    }
    py::list rows(static_cast<size_t>(batch.size()));
    for (int64_t i = 0; i < batch.size(); ++i) {
      const std::string_view value = batch.field_text(k, i);
      // Text rows were checked as UTF-8 when the field was read (index/field_values.h).
      rows[static_cast<size_t>(i)] = kind == FieldKind::kText
                                         ? py::object(py::str(value.data(), value.size()))
                                         : py::object(py::bytes(value.data(), value.size()));
    }
    field.list = std::move(rows);
  }
  return fields;
}

namespace {

// View v's capsule is owned by copies[v] when that is set, else by the batch's `owner`.
py::object PerView(const std::vector<FieldTensor>& views,
                   const std::vector<std::shared_ptr<const void>>& copies,
                   const std::shared_ptr<const void>& owner, bool several_views) {
  const auto capsule = [&](size_t v) {
    return MakeFieldDlpackCapsule(copies[v] ? copies[v] : owner, views[v]);
  };
  if (!several_views) return capsule(0);
  py::tuple objects(views.size());
  for (size_t v = 0; v < views.size(); ++v) objects[v] = capsule(v);
  return objects;
}

}  // namespace

py::list FieldObjects(std::vector<PendingField> fields, const std::shared_ptr<const void>& owner,
                      bool several_views) {
  py::list objects;
  for (PendingField& field : fields) {
    if (!field.views.empty()) {
      py::object values = PerView(field.views, field.view_copies, owner, several_views);
      objects.append(field.counts.empty()
                         ? values
                         : py::make_tuple(values, PerView(field.counts, field.count_copies, owner,
                                                          several_views)));
      continue;
    }
    objects.append(field.array ? py::object(MakeFieldDlpackCapsule(owner, *field.array))
                               : std::move(field.list));
  }
  return objects;
}

py::list FieldSpecTuples(const Loader& loader) {
  py::list specs;
  for (const FieldSpec& spec : loader.fields()) {
    specs.append(py::make_tuple(spec.name, std::string(ToString(spec.kind)),
                                std::string(ToString(spec.type)), py::tuple(py::cast(spec.shape)),
                                spec.boxes));
  }
  return specs;
}

}  // namespace h5feed::python
