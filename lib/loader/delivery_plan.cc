#include "loader/delivery_plan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_devices.h"
#include "h5feed/error.h"
#include "loader/batch_fields.h"
#include "loader/geometric_fields.h"
#include "loader/options_check.h"
#include "loader/warning.h"
#include "make_error.h"

namespace h5feed::loader {
namespace {

// Whether output.cuda_device can be used; says why not, once, when it cannot.
bool DeviceUsable(const LoaderOptions& options) {
  const int device = options.output.cuda_device;
  if (device < 0) return false;
  const cuda::DeviceStatus status = cuda::QueryDevices();
  if (status.device_count == 0) {
    Warn(options, OptionName(options, "output.cuda_device") + " is " + std::to_string(device) +
                      " but no CUDA device is usable (" + status.reason +
                      "); delivering host batches, normalized on the CPU");
    return false;
  }
  if (device >= status.device_count) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} is {} but {} CUDA device(s) are visible; use 0 .. {} (or -1 for host batches)",
        OptionName(options, "output.cuda_device"), device, status.device_count,
        status.device_count - 1);
  }
  return true;
}

// The fields the stage carries, in the slot's order (SlotRowBytes): the array fields, then the
// masks it crops, of the slot's image shape `shape` (a file of images at their own size: the
// stacked crops', own_size_masks.h). Throws Error(kCorrupt) for a mask of a file of one image
// size whose size is not the images'.
std::vector<cuda::DeviceField> DeviceFields(const std::vector<FieldSpec>& asked,
                                            const ImageShape& shape) {
  std::vector<cuda::DeviceField> fields;
  const std::vector<size_t> row_bytes = SlotRowBytes(asked, &shape);
  for (const FieldSpec& spec : asked) {
    if (spec.kind == FieldKind::kArray) fields.push_back({row_bytes[fields.size()], 0});
  }
  for (const FieldSpec& spec : asked) {
    if (spec.kind != FieldKind::kMask) continue;
    if (!spec.shape.empty() && spec.shape != std::vector<int64_t>{shape.height, shape.width}) {
      throw MakeError(ErrorCode::kCorrupt,
                      "mask field {} ({}) is not the size of the {}x{} images it belongs to: the "
                      "file is damaged; write it again",
                      spec.name, spec.Describe(), shape.height, shape.width);
    }
    fields.push_back({row_bytes[fields.size()], static_cast<int>(ElementBytes(spec.type))});
  }
  return fields;
}

}  // namespace

memory::SlotContents DeliveryPlan::slot_contents(const LoaderOptions& options) const {
  memory::SlotContents contents;
  contents.field_row_bytes = field_row_bytes;
  if (stage) {
    contents.row_orders = options.echo;
  } else if (views) {
    contents.output_image_bytes = static_cast<size_t>(views->room_per_sample());
  }
  return contents;
}

std::shared_ptr<memory::HostAllocator> DeliveryPlan::host_allocator() const {
  return stage ? stage->host_allocator() : memory::PageAlignedAllocator();
}

int64_t DeliveryPlan::HostMaskBytesPerRow(const std::vector<FieldSpec>& asked,
                                          const ImageShape& gathered) const {
  if (stage) return 0;
  return MaskBytesPerRow(asked, views ? &*views : nullptr, gathered);
}

void DeliveryPlan::Configure(const LoaderOptions& options,
                             pipeline::AssemblerOptions& assembler) const {
  assembler.echo = stage ? 1 : options.echo;
  assembler.device_echo = stage ? options.echo : 0;
  if (!stage) assembler.output = views;
}

DeliveryPlan PlanDelivery(const LoaderOptions& options, const ReadingPlan& reading,
                          int64_t capacity, const std::vector<FieldSpec>& asked) {
  const ImageShape& shape = reading.gathered;
  DeliveryPlan plan;
  if (options.normalize) {
    plan.normalize = transform::MakeNormalizeParams(options.mean.data(), options.std.data(),
                                                    static_cast<int>(options.mean.size()),
                                                    static_cast<int>(shape.channels));
    plan.views = reading.MakeViews(plan.normalize, options.output, nullptr);
  }
  if (plan.views && DeviceUsable(options)) {
    cuda::DeviceStageOptions stage;
    stage.device = options.output.cuda_device;
    stage.trainer_stream = options.output.cuda_stream;
    stage.capacity = capacity;
    stage.shape = shape;
    stage.views = *plan.views;
    stage.echo = options.echo;
    stage.inputs = 2;
    stage.outputs = std::max(2, SlotCount(options));
    stage.fields = DeviceFields(asked, shape);
    plan.stage = cuda::OpenDeviceStage(stage);
  }
  plan.field_row_bytes = SlotRowBytes(asked, plan.stage ? &shape : nullptr);
  return plan;
}

}  // namespace h5feed::loader
