#pragma once
// What a public h5feed::Batch holds: one delivered batch from the pipeline, whose slot lease
// keeps the host memory leased until the last Batch copy sharing it is destroyed, or, from the
// GPU stage, the device batch that keeps its device buffer until then; and how the loader makes
// one of what a run delivers.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cuda/device_stage.h"
#include "h5feed/image_shape.h"
#include "h5feed/loader.h"
#include "loader/batch_fields.h"
#include "loader/geometric_fields.h"
#include "pipeline/batch_queue.h"
#include "transform/output_views.h"

namespace h5feed {

// Immutable once made; shared read-only by Batch copies (any threads).
struct Batch::Impl {
  // Host batches: the slot's arrays. GPU batches: no lease and no images; rows, epoch and step
  // set, labels / indices pointing into host_rows and array fields into host_fields.
  pipeline::AssembledBatch batch;
  ImageShape shape;
  bool normalized = false;
  bool labelled = true;  // false: the file has no labels, and the batch delivers none
  // The fields asked, their columns held (bytes and text rows are read there).
  std::shared_ptr<const loader::BatchFields> fields;
  // Set when normalized: the run's views (their sizes), and the rows a view's region was laid
  // out for (output_views.h).
  std::shared_ptr<const transform::OutputViews> views;
  int64_t capacity = 0;
  // GPU stage: the normalized images, labels and fields on device `cuda_device`. Destroying the
  // last Batch copy records the release on the trainer's stream (cuda/device_stage.h).
  std::shared_ptr<cuda::DeviceBatch> device;
  int cuda_device = -1;
  // GPU stage: the host labels, dataset rows and array fields of the echo copies of one loaded
  // batch (loader/device_feed.h), shared by them.
  std::shared_ptr<std::vector<int64_t>> host_rows;
  std::shared_ptr<std::vector<uint8_t>> host_fields;
  // Asked a mask or boxes: geometric[k][view] (loader/geometric_fields.h), each tensor owned
  // on its own (Batch::field_owner shares it); GPU batches have their masks on the device
  // (DeviceBatch::field) and only the boxes here.
  loader::GeometricFields geometric;
  // Host batches: counts this batch among those the trainer holds until its last copy goes
  // (loader/held_slots.h).
  std::shared_ptr<const void> held;

  // Field k by position, or Error(kInvalidArgument) naming those asked.
  const loader::BatchField& field(int k) const;
};

namespace loader {

struct DeviceDelivery;  // loader/device_feed.h

// What every batch of one run shares: the image shape, whether (and into which views) it was
// normalized, where the GPU stage's batches lie, whether they have labels, and the fields.
struct BatchForm {
  ImageShape shape;
  bool normalized = false;
  bool labelled = true;
  std::shared_ptr<const BatchFields> fields;            // never null (no field asked: none)
  std::shared_ptr<const transform::OutputViews> views;  // set when normalized
  int64_t capacity = 0;                                 // rows a slot holds: the batch size
  int cuda_device = -1;  // output.cuda_device; host batches are on the host whatever it says
};

// What the assembler makes for each batch of a run of `form` beside its slot
// (pipeline::AssemblerOptions::make_extras), in its step tasks rather than on the
// consumer's thread: a host batch's masks and boxes (GeometricFields, geometric_fields.h); with
// `device_echo` > 0 (the GPU path, whose assembler delivers each loaded batch once and whose
// device makes its `device_echo` echo copies) the boxes of every copy (EchoGeometricFields),
// which DeviceFeed hands out with each copy. Empty when no mask or boxes field is asked.
std::function<std::shared_ptr<const void>(std::span<const int64_t>, int64_t, int)>
GeometricFieldsMaker(const BatchForm& form, int device_echo);

// A host batch as the assembler delivered it, with GeometricFieldsMaker(form, 0)'s extras.
std::shared_ptr<Batch::Impl> MakeBatchImpl(pipeline::AssembledBatch batch, const BatchForm& form);
// A batch the GPU stage made (form.cuda_device >= 0), with its copy's boxes from
// GeometricFieldsMaker(form, echo)'s extras (DeviceDelivery::geometric).
std::shared_ptr<Batch::Impl> MakeBatchImpl(DeviceDelivery delivery, const BatchForm& form);

}  // namespace loader
}  // namespace h5feed
