#pragma once
// The geometric fields of one host batch (docs/augment.md, "Masks and boxes follow the image's
// geometry"): each asked mask and boxes field moved through the geometry each view gave each
// sample's image (transform/view_geometry.h: the image's own draws, for the batch's epoch and
// echo copy, on files of one image size and of images at their own size alike), into tensors
// the Batch owns:
//   mask        (B, Ho, Wo) of its element type, one per view: TransformMask, its padding
//               views->mask_fill (OutputOptions::mask_fill);
//   boxes       (B, Kmax, 4) float32, one per view: TransformBoxes, Kmax the most boxes any
//               sample of the batch kept in that view, rows past a sample's count zero; with a
//               (B,) int64 count of each sample's boxes;
//   box_labels  (B, Kmax) int64, one per view: the classes of the boxes kept, in step with them;
//   box_values  (B, Kmax) of their element type, one per view: each kept box's value, carried
//               as stored (never transformed), in step with the boxes; like box labels, a
//               sample's values past its count are 0.
// Without normalization (no views) the geometry is the identity of the stored image.
//
// Made for a host batch in the assembler's step tasks (pipeline::AssemblerOptions::
// make_extras), once its rows and echo copy are known, rather than on the consumer's thread when
// it is handed out: the trainer's thread only takes them. The masks are transformed in parallel
// over the samples (tbb::parallel_for in the calling thread's arena, the loader's). Made from the
// columns the loader holds (batch_fields.h) and the batch's indices, which echo's permutations
// and the skip of damaged chunks keep right. The GPU path's boxes are made there too, for every
// echo copy of the loaded batch at once (EchoGeometricFields; its masks are cropped on the
// device), and the GPU feed puts each copy's samples in the order the device permutes its rows
// into (InOrder), as it does the host labels. Immutable once made, and each tensor
// owned on its own, so that Batch::field_owner can hand out an owner of one tensor without the
// Batch: a trainer keeping a batch's masks (the ground truth of an evaluation) keeps neither its
// slot nor its images.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/image_shape.h"
#include "loader/batch_fields.h"
#include "transform/output_views.h"

namespace h5feed::loader {

struct GeometricTensor {
  // Little-endian values, row-major, as many as `shape` says. A mask's are allocated without
  // being zeroed: its transform writes every one (a batch of 256 masks of 224 x 224 is 12.8 MB
  // that zeroing would write twice).
  std::unique_ptr<uint8_t[]> bytes;
  std::vector<int64_t> shape;   // (B, Ho, Wo), (B, Kmax, 4) or (B, Kmax) (per-box values)
  std::vector<int64_t> counts;  // boxes: each sample's boxes kept, (B); else empty
};

// Field k's tensor in view v at [k][v].
using GeometricFields = std::vector<std::vector<std::shared_ptr<const GeometricTensor>>>;

// tensors[k][v]: field k's tensor in view v, for each geometric field k of `fields` (empty for
// the others, and, when `device`, for the masks the GPU stage crops: BatchField::
// device_slot_field). `shape` is the gathered image shape (a file of one image size); an own-size
// file's rows are sized by fields.image_sizes. Throws Error(kCorrupt) naming the field and the
// row when a mask's row is not its image's size.
GeometricFields MakeGeometricFields(const BatchFields& fields, const transform::OutputViews* views,
                                    const ImageShape& shape, std::span<const int64_t> indices,
                                    int64_t epoch, int copy, bool device = false);

// The bytes of the masks one row of a host batch carries at most: every mask field of `asked`,
// in every view at the largest size its room in the slot allows (OutputViews::room_bytes: a
// later SetOutputSize stays within it), or without views at `shape`, the images the slots hold
// (a file of one image size's, or of images at their own size that all have one size, read as
// they are). Up to the slot count of batches hold theirs at once, made ahead of the trainer:
// Open's memory check counts them (options_check.h, DatasetFootprint::mask_bytes).
int64_t MaskBytesPerRow(const std::vector<FieldSpec>& asked, const transform::OutputViews* views,
                        const ImageShape& shape);

// The GPU path's geometric fields of one loaded batch (the extras its assembler makes, which
// delivers each loaded batch once and leaves its echo copies to the device): for each echo copy
// e, at copies[e], MakeGeometricFields(..., e, device = true) of the loaded batch's indices, in
// the loaded batch's row order; and the fields they are of.
struct EchoGeometricFields {
  std::shared_ptr<const BatchFields> fields;
  std::vector<GeometricFields> copies;
};

// `made` (MakeGeometricFields of `fields`) with its samples in `order`: sample i of each tensor
// (and its box count) is sample order[i] of `made`'s. That is what MakeGeometricFields makes of
// the indices in that order: a sample's values follow from its dataset row, the epoch and the
// copy alone, and a view's boxes are padded to the most any sample kept, which no order changes.
GeometricFields InOrder(const BatchFields& fields, const GeometricFields& made,
                        std::span<const int64_t> order);

}  // namespace h5feed::loader
