#pragma once
// Where a loader's batches are delivered and in what form, decided once at Open: on the host
// (normalized on the CPU when asked), or through the GPU stage when output.cuda_device >= 0
// and a device is usable. Asked for a device where none is usable (no GPU, no driver, a build
// without nvcc), the loader says so once (on_warning, else stderr) and delivers host batches
// with the same arithmetic.

#include <memory>
#include <optional>
#include <vector>

#include "cuda/device_stage.h"
#include "h5feed/field.h"
#include "h5feed/loader_options.h"
#include "loader/reading_plan.h"
#include "memory/slot_layout.h"
#include "pipeline/batch_assembler.h"
#include "transform/output_views.h"

namespace h5feed::loader {

struct DeliveryPlan {
  // Set when normalizing (either side): the views at Open, whose room per image is the most
  // any later SetOutputSize may use.
  std::optional<transform::OutputViews> views;
  transform::NormalizeParams normalize;      // the factors the views normalize with
  std::unique_ptr<cuda::DeviceStage> stage;  // set: GPU delivery
  // The slot's field regions (batch_fields.h, SlotRowBytes): the array fields, and with the
  // GPU stage the masks it crops.
  std::vector<size_t> field_row_bytes;

  // What a host slot holds: the CPU path's normalized images, or the GPU path's row orders;
  // and the fields' regions.
  memory::SlotContents slot_contents(const LoaderOptions& options) const;
  std::shared_ptr<memory::HostAllocator> host_allocator() const;
  // The host masks one batch row carries, which Open's memory check counts
  // (DatasetFootprint::mask_bytes): none on the GPU path (its masks are on the device), else
  // MaskBytesPerRow of the `asked` fields in the views, or without views at `gathered`, the
  // images the slots hold (ReadingPlan::gathered).
  int64_t HostMaskBytesPerRow(const std::vector<FieldSpec>& asked,
                              const ImageShape& gathered) const;
  // The GPU path loads each batch once (host echo 1) and echoes on the device; the CPU path
  // normalizes and echoes on the host.
  void Configure(const LoaderOptions& options, pipeline::AssemblerOptions& assembler) const;
};

// The slots hold `capacity` rows of reading.gathered images; the GPU stage carries the `asked`
// fields that have a region in the slot (batch_fields.h, SlotRowBytes). Throws what
// MakeNormalizeParams / reading.MakeViews throw for bad normalization options,
// Error(kInvalidArgument) for a device index that does not exist, Error(kCuda) when the device
// cannot be set up.
DeliveryPlan PlanDelivery(const LoaderOptions& options, const ReadingPlan& reading,
                          int64_t capacity, const std::vector<FieldSpec>& asked);

}  // namespace h5feed::loader
