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
std::vector<PendingField> ReadFields(const Batch& batch) {
  std::vector<PendingField> fields(static_cast<size_t>(batch.fields()));
  for (int k = 0; k < batch.fields(); ++k) {
    PendingField& field = fields[static_cast<size_t>(k)];
    const FieldKind kind = batch.field_spec(k).kind;
    if (IsGeometric(kind)) {
      for (int v = 0; v < batch.views(); ++v) {
        field.views.push_back(batch.field_tensor(k, v));
        field.owners.push_back(batch.field_owner(k, v));
        if (kind == FieldKind::kBoxes) field.counts.push_back(batch.box_counts(k, v));
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

// View v's capsule is owned by owners[v] when that is set (its tensor's own owner), else by
// the batch's `owner`.
py::object PerView(const std::vector<FieldTensor>& views,
                   const std::vector<std::shared_ptr<const void>>& owners,
                   const std::shared_ptr<const void>& owner, bool several_views) {
  const auto capsule = [&](size_t v) {
    return MakeFieldDlpackCapsule(owners[v] ? owners[v] : owner, views[v]);
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
      py::object values = PerView(field.views, field.owners, owner, several_views);
      objects.append(
          field.counts.empty()
              ? values
              : py::make_tuple(values, PerView(field.counts, field.owners, owner, several_views)));
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
