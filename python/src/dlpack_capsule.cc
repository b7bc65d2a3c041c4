#include "dlpack_capsule.h"

#include <array>
#include <cstdint>
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
// keeps the memory alive. One allocation, freed by the deleter (which needs no GIL: torch may
// call it from any thread).
struct BatchTensor {
  DLManagedTensor managed;
  std::shared_ptr<const void> owner;
  std::array<int64_t, 4> shape;
  std::array<int64_t, 4> strides;
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

void DeleteBatchTensor(DLManagedTensor* self) {
  delete static_cast<BatchTensor*>(self->manager_ctx);
}

// The consumer renames a capsule it took to "used_dltensor" and owns the tensor from then on;
// a capsule still named "dltensor" when it dies was never consumed, so it frees the tensor.
void DestroyCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  managed->deleter(managed);
}

}  // namespace

pybind11::capsule MakeDlpackCapsule(std::shared_ptr<const void> owner, const TensorView& view) {
  const DLDataType dtype = ToDlpack(view.type);
  auto* tensor = new BatchTensor{{}, std::move(owner), view.shape, view.strides};
  DLTensor& dl = tensor->managed.dl_tensor;
  // DLPack has no read-only flag; writing into a delivered batch changes only that batch.
  dl.data = const_cast<void*>(view.data);
  dl.device = view.cuda_device >= 0 ? DLDevice{kDLCUDA, view.cuda_device} : DLDevice{kDLCPU, 0};
  dl.ndim = view.rank;
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
