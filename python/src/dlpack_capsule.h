#pragma once
// A batch's arrays handed to Python as DLPack capsules ("dltensor") that
// torch.utils.dlpack.from_dlpack turns into tensors: the images without a copy, over the
// loader's own slot memory; labels and indices as copies of their own.
//
// A view's capsule shares ownership of `owner` (which holds the h5feed::Batch, and the Batch
// its slot): the slot goes back to the loader only when the tensor made from the capsule is
// freed (or the capsule itself, if it was never consumed). A trainer holding `slots` batches'
// images therefore stalls the loader until it lets one go, exactly as holding h5feed::Batch
// objects does in C++. A copy's capsule owns its copy alone and keeps nothing of the loader.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <span>

#include "h5feed/loader.h"

namespace h5feed::python {

// `view` is one of a batch's image_tensor() / label_tensor() / index_tensor(); `owner` keeps
// its memory alive. The device is kDLCUDA with view.cuda_device when the array lies on a GPU,
// else kDLCPU.
pybind11::capsule MakeDlpackCapsule(std::shared_ptr<const void> owner, const TensorView& view);

// An array field of a batch (Batch::field_tensor), host memory kept alive by `owner`: the
// batch's own rows for every element type torch 1.13 has, bool delivered as uint8 (torch
// 1.13 reads no DLPack bool) and uint64 as int64 (the same bits); uint16 and uint32, which
// torch 1.13 lacks, widened to int64 in a copy the capsule owns alone.
pybind11::capsule MakeFieldDlpackCapsule(std::shared_ptr<const void> owner,
                                         const FieldTensor& tensor);

// A 1-D int64 host array over a copy of `values` that the capsule owns alone: labels and
// indices (8 bytes a sample), which trainers keep beyond a step as they keep a DataLoader's.
pybind11::capsule MakeCopiedDlpackCapsule(std::span<const int64_t> values);

}  // namespace h5feed::python
