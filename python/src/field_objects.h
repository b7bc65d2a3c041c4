#pragma once
// A batch's fields as h5feed.Loader yields them (fields=[...]; docs/python.md): an array field
// as a DLPack capsule of shape (B, *shape) that torch.utils.dlpack.from_dlpack turns into a
// tensor (dlpack_capsule.h says which element types are the batch's own memory and which are
// copies), a bytes field as a list of `bytes`, a text field as a list of `str`, one per sample.
//
// Made in two steps because the capsules of a batch's memory share the owner HeldBatches makes
// of the Batch (held_batches.h), which takes the Batch: ReadFields reads what it needs while the
// caller still has it (the lists are made then, copies of the rows), and FieldObjects makes
// the capsules once the owner exists. Both with the GIL held.

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <vector>

#include "h5feed/loader.h"

namespace h5feed::python {

// One field of a batch on its way to Python: a list made already, or an array's view, or a
// mask's, boxes' or box labels' tensor per view (and boxes' counts per view).
//
// A host batch's masks, boxes, counts and box labels are tensors the Batch made for itself,
// not its slot's memory, yet a capsule owned by the batch would hold the slot: a trainer
// keeping them past the step (ground truth gathered for an evaluation, as torchmetrics'
// MeanAveragePrecision keeps its targets) would stop the loader. Their capsules share the
// tensor's own owner instead (Batch::field_owner, `owners`), without a copy: keeping them
// keeps that tensor alone. A device mask is the stage's buffer and is owned by the batch, like
// the images.
struct PendingField {
  pybind11::object list;             // bytes and text fields
  std::optional<FieldTensor> array;  // array fields: the batch's rows (valid while it is held)
  std::vector<FieldTensor> views;    // geometric fields: one per view
  std::vector<FieldTensor> counts;   // boxes: one per view
  // Per view, Batch::field_owner: the owner of the view's tensor (and its counts) alone, or
  // null for a device mask, which the batch's owner keeps.
  std::vector<std::shared_ptr<const void>> owners;
};

std::vector<PendingField> ReadFields(const Batch& batch);

// One Python object per field, in order; the capsules of the batch's memory share `owner`. A
// geometric field's is its one view's capsule, or with `several_views` a tuple of one per view; a
// boxes field's is the pair (boxes, counts) of those.
pybind11::list FieldObjects(std::vector<PendingField> fields,
                            const std::shared_ptr<const void>& owner, bool several_views);

// The specs of `loader`'s fields as (name, kind, type, shape, boxes) tuples, in order (kind and
// type in the library's words: "array", "bool", ...; boxes: the boxes field a box_labels field
// classifies, else ""): what h5feed/_loader.py needs to name them, to see a bool array's uint8
// capsule as bool and to split box labels by their boxes' counts.
pybind11::list FieldSpecTuples(const Loader& loader);

}  // namespace h5feed::python
