#include "dlpack_capsule.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::python {
namespace {

// DLPack's ABI (dlpack.h v0.6-v0.8, which torch 1.13 reads), written out here because no
// Debian package installs dlpack.h. Only the layout matters: these are C structs read by torch.
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2 };
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

// The capsule's payload: the DLPack header, the arrays it points into, and the owner that
// keeps the memory alive. Freed by the deleter (which needs no GIL: torch may call it from any
// thread).
struct BatchTensor {
  DLManagedTensor managed;
  std::shared_ptr<const void> owner;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

DLDataType ToDlpack(ElementType type) {
  switch (type) {
    case ElementType::kUint8: return {kDLUInt, 8, 1};
    case ElementType::kInt64: return {kDLInt, 64, 1};
    case ElementType::kFloat32: return {kDLFloat, 32, 1};
    case ElementType::kFloat16: return {kDLFloat, 16, 1};
    case ElementType::kBFloat16: return {kDLBfloat, 16, 1};
  }
  throw Error(ErrorCode::kInternal, "a batch array has an element type DLPack cannot describe");
}

// An array field's element type as DLPack says it, as torch 1.13 reads it: bool as uint8 (it
// refuses DLPack's kDLBool; h5feed/_loader.py views the tensor as bool), uint64 as int64 (the
// same bits; torch 1.13 has no uint64). uint16 and uint32 have no DLPack type torch 1.13 reads.
std::optional<DLDataType> FieldDlpackType(FieldType type) {
  switch (type) {
    case FieldType::kBool:
    case FieldType::kUint8: return DLDataType{kDLUInt, 8, 1};
    case FieldType::kInt8: return DLDataType{kDLInt, 8, 1};
    case FieldType::kInt16: return DLDataType{kDLInt, 16, 1};
    case FieldType::kInt32: return DLDataType{kDLInt, 32, 1};
    case FieldType::kInt64:
    case FieldType::kUint64: return DLDataType{kDLInt, 64, 1};
    case FieldType::kFloat16: return DLDataType{kDLFloat, 16, 1};
    case FieldType::kFloat32: return DLDataType{kDLFloat, 32, 1};
    case FieldType::kFloat64: return DLDataType{kDLFloat, 64, 1};
    case FieldType::kUint16:
    case FieldType::kUint32: return std::nullopt;
  }
  return std::nullopt;
}

// The consumer renames a capsule it took to "used_dltensor" and owns the tensor from then on;
// a capsule still named "dltensor" when it dies was never consumed, so it frees the tensor.
void DestroyCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  managed->deleter(managed);
}

// Strides in elements of a contiguous row-major array of `shape`.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

void DeleteBatchTensor(DLManagedTensor* self) {
  delete static_cast<BatchTensor*>(self->manager_ctx);
}

pybind11::capsule MakeCapsule(std::shared_ptr<const void> owner, const void* data, int device_type,
                              int device_id, DLDataType dtype, std::vector<int64_t> shape,
                              std::vector<int64_t> strides) {
  auto* tensor = new BatchTensor{{}, std::move(owner), std::move(shape), std::move(strides)};
  DLTensor& dl = tensor->managed.dl_tensor;
  // DLPack has no read-only flag; writing into a delivered batch changes only that batch.
  dl.data = const_cast<void*>(data);
  dl.device = DLDevice{device_type, device_id};
  dl.ndim = static_cast<int32_t>(tensor->shape.size());
  dl.dtype = dtype;
  dl.shape = tensor->shape.data();
  dl.strides = tensor->strides.data();
  dl.byte_offset = 0;
  tensor->managed.manager_ctx = tensor;
  tensor->managed.deleter = DeleteBatchTensor;
  PyObject* capsule = PyCapsule_New(&tensor->managed, "dltensor", DestroyCapsule);
  if (capsule == nullptr) {
    delete tensor;
    throw pybind11::error_already_set();
  }
  return pybind11::reinterpret_steal<pybind11::capsule>(capsule);
}

// The values of `tensor` (uint16 or uint32) widened to int64, in an array of their own.
template <typename Unsigned>
std::shared_ptr<const std::vector<int64_t>> Widened(const FieldTensor& tensor) {
  const auto count = static_cast<size_t>(tensor.elements());
  auto values = std::make_shared<std::vector<int64_t>>(count);
  for (size_t i = 0; i < count; ++i) {
    Unsigned value;
    std::memcpy(&value, static_cast<const uint8_t*>(tensor.data) + i * sizeof(Unsigned),
                sizeof(Unsigned));
    (*values)[i] = static_cast<int64_t>(value);
  }
  return values;
}

}  // namespace

pybind11::capsule MakeDlpackCapsule(std::shared_ptr<const void> owner, const TensorView& view) {
  const auto rank = static_cast<size_t>(view.rank);
  const bool on_device = view.cuda_device >= 0;
  return MakeCapsule(std::move(owner), view.data, on_device ? kDLCUDA : kDLCPU,
                     on_device ? view.cuda_device : 0, ToDlpack(view.type),
                     std::vector<int64_t>(view.shape.begin(), view.shape.begin() + rank),
                     std::vector<int64_t>(view.strides.begin(), view.strides.begin() + rank));
}

pybind11::capsule MakeFieldDlpackCapsule(std::shared_ptr<const void> owner,
                                         const FieldTensor& tensor) {
  const bool on_device = tensor.cuda_device >= 0;
  const int device_type = on_device ? kDLCUDA : kDLCPU;
  const int device_id = on_device ? tensor.cuda_device : 0;
  if (const std::optional<DLDataType> dtype = FieldDlpackType(tensor.type)) {
    return MakeCapsule(std::move(owner), tensor.data, device_type, device_id, *dtype, tensor.shape,
                       ContiguousStrides(tensor.shape));
  }
  if (on_device) {
    // Device values cannot be widened here, on the host, without waiting for the device: they
    // go as the signed type of their width (the same bits), which h5feed/_loader.py widens to
    // int64 on the device, on the loader's stream (_widened).
    const auto bits = static_cast<uint8_t>(tensor.type == FieldType::kUint16 ? 16 : 32);
    return MakeCapsule(std::move(owner), tensor.data, kDLCUDA, device_id,
                       DLDataType{kDLInt, bits, 1}, tensor.shape, ContiguousStrides(tensor.shape));
  }
  const std::shared_ptr<const std::vector<int64_t>> values =
      tensor.type == FieldType::kUint16 ? Widened<uint16_t>(tensor) : Widened<uint32_t>(tensor);
  const void* data = values->data();
  return MakeCapsule(values, data, kDLCPU, 0, DLDataType{kDLInt, 64, 1}, tensor.shape,
                     ContiguousStrides(tensor.shape));
}

pybind11::capsule MakeCopiedDlpackCapsule(std::span<const int64_t> values) {
  auto copy = std::make_shared<const std::vector<int64_t>>(values.begin(), values.end());
  TensorView view;
  view.data = copy->data();
  view.type = ElementType::kInt64;
  view.rank = 1;
  view.shape[0] = static_cast<int64_t>(copy->size());
  view.strides[0] = 1;
  return MakeDlpackCapsule(std::move(copy), view);
}

}  // namespace h5feed::python
