#pragma once
// The fields a loader delivers (LoaderOptions::fields; docs/format.md, "Fields"): which of the
// file's fields, in the order asked, and their values, read whole at Open and held in memory
// for the loader's life, shared by every batch it makes (a batch held past its loader keeps
// them, as it keeps its slot).
//
// How each kind reaches a batch: an array field's rows are copied into the batch's slot beside
// its labels (memory/slot_layout.h), so echo's permuted copies and the skip of corrupt chunks
// move them with their rows as they move labels; a bytes or text field is not copied at all:
// the batch holds the column, and its row i is the column's row at the batch's indices()[i],
// which those same moves keep right. With the GPU stage, masks have a region in the slot as
// well, after the array fields, and go to the device with them to be cropped there
// (cuda/field_kernels.h): a file of one image size's rows copied as they are stored, a file of
// images at their own size's cropped at the gather as the images are (own_size_masks.h). Boxes
// and their labels and values are made on the host (geometric_fields.h).
//
// Array fields beyond LoaderOptions::held_field_bytes are streamed instead (streamed_fields.h):
// they have no column, and the gatherer copies their rows out of what each chunk's load read
// beside it.
//
// A held field's row that fails its check at open fails the open, or with skip_corrupt_chunks
// is held as zeros and its image chunk left out of every step from the first, as a chunk found
// damaged by a step is (docs/reliability.md, "With skip_corrupt_chunks"): no batch holds it.
//
// Immutable once read: any thread may read a BatchFields.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/image_shape.h"
#include "h5feed/loader_options.h"
#include "index/dataset_index.h"
#include "index/field_values.h"
#include "loader/streamed_fields.h"
#include "pipeline/batch_gatherer.h"

namespace h5feed::loader {

struct BatchField {
  FieldSpec spec;
  // Every dataset row, in stored order; null for a streamed field (StreamedFields).
  std::shared_ptr<const FieldColumn> column;
  int slot_field = -1;  // an array field's region in the slot (SlotView::fields); else -1
  // A mask: its region in the slot when the GPU stage delivers (after every array field's);
  // else -1.
  int device_slot_field = -1;
};

struct BatchFields {
  std::vector<BatchField> fields;  // in the order asked
  // Asked a mask or boxes of a file of images at their own size whose rows are cropped at the
  // gather (reading_plan.h): each row's stored height and width (their geometry's source);
  // empty otherwise, where every row has the slots' one image size (a file of one image size,
  // or of images at their own size that all have one, read as it is).
  std::vector<std::array<int32_t, 2>> image_sizes;
  // With skip_corrupt_chunks: the rows of the held fields that failed their checks at open,
  // zeros in their columns, whose image chunks the gatherer leaves out of every step
  // (gatherer_options.h); each field's ascending, in the order the fields were read.
  std::vector<index::DamagedFieldRow> damaged_rows;

  // The position of field `name` among those asked, or -1.
  int Find(std::string_view name) const;
  // "attrs (uint8[40]), caption (text)", or "none" when no field was asked: for messages.
  std::string Names() const;
};

// The specs of the fields `options` asks, in its order, checked against the file before
// anything is read or allocated; a boxes field brings the file's box labels and values of it
// after it (those not asked), in the file's order. Throws Error(kNotFound) for a name the file
// lacks (listing the fields it has), Error(kInvalidArgument) for a name asked twice or box
// labels or values without their boxes.
std::vector<FieldSpec> AskedFields(const LoaderOptions& options,
                                   const index::DatasetIndex& dataset);

// One row's bytes of each field with a region in the slot, in the slot's order
// (memory::SlotContents::field_row_bytes): the asked array fields, then, when the GPU stage
// delivers (`device_images`: the slot's image shape, else null), the masks, each one value per
// pixel of that shape.
std::vector<size_t> SlotRowBytes(const std::vector<FieldSpec>& asked,
                                 const ImageShape* device_images);

// Reads every asked field whole but those `streamed` streams (index::ReadFieldColumn, which
// checks each row), together within `memory` bytes: what the machine holds beside the slots
// and the cache the loader commits. With skip_corrupt_chunks a damaged row does not fail it:
// it is held as zeros and listed in damaged_rows. `crops_at_gather`: the reading plan's
// (ReadingPlan::crops_at_gather), whether image_sizes is filled. Throws what ReadFieldColumn
// throws; its refusal of a field beyond `memory` (kInvalidArgument) says which options to lower.
std::shared_ptr<const BatchFields> ReadBatchFields(const std::vector<FieldSpec>& asked,
                                                   const index::DatasetIndex& dataset,
                                                   uint64_t memory, const LoaderOptions& options,
                                                   const StreamedFields& streamed,
                                                   bool crops_at_gather);

// Where the gatherer copies the slot's array rows from, in the slot's order: the array fields
// (a column, or a streamed field's rows read with each chunk), then, when `device`, the masks
// of a file of one image size, stored as arrays of its one size (those of images at their own
// size are made: own_size_masks.h).
std::vector<pipeline::BatchGatherer::ArrayField> SlotArrayFields(const BatchFields& fields,
                                                                 bool device,
                                                                 const StreamedFields& streamed);

}  // namespace h5feed::loader
