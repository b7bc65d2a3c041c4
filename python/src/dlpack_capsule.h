#pragma once
// A batch's array handed to Python without a copy: a DLPack capsule ("dltensor") that
// torch.utils.dlpack.from_dlpack turns into a tensor over the loader's own slot memory.
//
// The capsule shares ownership of `owner` (which holds the h5feed::Batch, and the Batch its
// slot): the slot goes back to the loader only when the tensor made from the capsule is freed
// (or the capsule itself, if it was never consumed). A trainer holding `slots` batches'
// tensors therefore stalls the loader until it lets one go, exactly as holding h5feed::Batch
// objects does in C++.

#include <pybind11/pybind11.h>

#include <memory>

#include "h5feed/loader.h"

namespace h5feed::python {

// `view` is one of a batch's image_tensor() / label_tensor() / index_tensor(); `owner` keeps
// its memory alive. The device is kDLCUDA with view.cuda_device when the array lies on a GPU,
// else kDLCPU.
pybind11::capsule MakeDlpackCapsule(std::shared_ptr<const void> owner, const TensorView& view);

}  // namespace h5feed::python
