// DeviceFeed (lib/loader/device_feed.h), the GPU path's logic on the host side: echo copies
// made from one load, step numbering, resuming mid-echo, the held-buffer error, the host
// labels, rows and array fields permuted by the orders the device permutes by, and the run's
// end and error handed out as the assembler keeps them. The CUDA
// stage cannot run on a machine without a GPU, so HostStage implements the DeviceStage
// interface in host memory with the CPU path's functions (the real stage is checked against
// the CPU path bit for bit by tests/lib/cuda/ on a GPU).

#include "loader/device_feed.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/error.h"
#include "lib/pipeline/synthetic_dataset.h"
#include "pipeline/batch_assembler.h"
#include "pipeline/cpu_normalize.h"
#include "pipeline/epoch_plan.h"
#include "sampler/permutation.h"

namespace h5feed::loader {
namespace {

constexpr ImageShape kShape{6, 5, 3};
constexpr int64_t kBatch = 24;
constexpr size_t kFieldBytes = 3;  // one array field's row: its dataset row's FieldRow

std::vector<uint8_t> FieldRow(int64_t row) {
  return {static_cast<uint8_t>(row), static_cast<uint8_t>(row >> 8), static_cast<uint8_t>(row * 7)};
}

// The array field every row of the runs below carries.
std::shared_ptr<const FieldColumn> FieldValues(int64_t rows) {
  auto column = std::make_shared<FieldColumn>();
  for (int64_t row = 0; row < rows; ++row) column->Append(FieldRow(row));
  return column;
}

// DeviceStage in host memory: Load copies the slot (and returns it at once: a host copy is
// done when it returns), Emit permutes the rows by the copy's order and normalizes them.
class HostStage final : public cuda::DeviceStage {
 public:
  HostStage(const transform::OutputSpec& spec, int outputs) : spec_(spec) {
    inputs_.resize(2);
    for (int i = 0; i < outputs; ++i) free_outputs_.push_back(i);
  }
  std::shared_ptr<memory::HostAllocator> host_allocator() const override {
    return memory::PageAlignedAllocator();
  }
  int free_inputs() const override { return 2 - busy_inputs_; }
  int free_outputs() const override {
    std::lock_guard lock(mutex_);
    return static_cast<int>(free_outputs_.size());
  }
  // The array fields stay on the host here: the feed's host rows are what this test checks.
  const std::vector<cuda::DeviceField>& fields() const override { return fields_; }
  int Load(cuda::HostBatch batch) override {
    REQUIRE(busy_inputs_ < 2);
    const int index = input_busy_[0] ? 1 : 0;
    input_busy_[index] = true;
    ++busy_inputs_;
    ++loads;
    Input& in = inputs_[static_cast<size_t>(index)];
    in.images.assign(batch.images.begin(), batch.images.end());
    in.group.assign(batch.group.begin(), batch.group.end());
    in.batch_indices_offset = batch.indices_offset;
    in.orders_offset = batch.orders_offset;
    in.rows = batch.rows;
    in.epoch = batch.epoch;
    return index;
  }
  std::shared_ptr<cuda::DeviceBatch> Emit(int input, int copy, bool last) override {
    int output = -1;
    {
      std::lock_guard lock(mutex_);
      REQUIRE(!free_outputs_.empty());
      output = free_outputs_.back();
      free_outputs_.pop_back();
    }
    const Input& in = inputs_[static_cast<size_t>(input)];
    const auto rows = static_cast<size_t>(in.rows);
    const auto image = static_cast<size_t>(kShape.bytes());
    const auto* group = reinterpret_cast<const int64_t*>(in.group.data());
    const int64_t* indices = group + in.batch_indices_offset / 8;
    const int64_t* order = group + in.orders_offset / 8 + static_cast<size_t>(copy) * kBatch;
    std::vector<uint8_t> permuted(rows * image);
    auto batch = std::make_shared<Batch>(this, output);
    std::vector<int64_t> permuted_indices(rows);
    for (size_t i = 0; i < rows; ++i) {
      const auto from = static_cast<size_t>(order[i]);
      std::memcpy(permuted.data() + i * image, in.images.data() + from * image, image);
      permuted_indices[i] = indices[from];
      batch->label_values.push_back(group[from]);
    }
    batch->index_values = permuted_indices;
    batch->image_bytes.resize(rows * static_cast<size_t>(spec_.image_bytes()));
    pipeline::NormalizeBatch(permuted, kShape, in.rows, spec_,
                             pipeline::SampleKeys{in.epoch, copy, permuted_indices},
                             batch->image_bytes);
    ++emits;
    if (last) Abandon(input);
    return batch;
  }
  void SetViews(const transform::OutputViews& views) override { spec_ = views.views[0]; }
  void Abandon(int input) override {
    input_busy_[static_cast<size_t>(input)] = false;
    --busy_inputs_;
  }
  void Synchronize() override {}

  int loads = 0;
  int emits = 0;

  struct Batch final : cuda::DeviceBatch {
    Batch(HostStage* stage, int output) : stage_(stage), output_(output) {}
    ~Batch() override {
      std::lock_guard lock(stage_->mutex_);
      stage_->free_outputs_.push_back(output_);
    }
    const void* images() const override { return image_bytes.data(); }
    const int64_t* labels() const override { return label_values.data(); }
    const void* field(int, int) const override { return nullptr; }
    void MakeReady() const override {}
    std::vector<uint8_t> image_bytes;
    std::vector<int64_t> label_values;
    std::vector<int64_t> index_values;  // the rows the stage permuted by the copy's order
    HostStage* stage_;
    int output_;
  };

 private:
  const std::vector<cuda::DeviceField> fields_;
  struct Input {
    std::vector<uint8_t> images;
    std::vector<uint8_t> group;
    size_t batch_indices_offset = 0;
    size_t orders_offset = 0;
    int64_t rows = 0;
    int64_t epoch = 0;
  };

  transform::OutputSpec spec_;
  std::vector<Input> inputs_;
  bool input_busy_[2] = {false, false};
  int busy_inputs_ = 0;
  mutable std::mutex mutex_;
  std::vector<int> free_outputs_;  // guarded by mutex_
};

transform::OutputSpec Spec(uint64_t seed) {
  const float mean[3] = {0.5f, 0.4f, 0.3f};
  const float std[3] = {0.2f, 0.25f, 0.3f};
  OutputOptions output;
  output.type = ElementType::kBFloat16;
  output.layout = Layout::kNHWC;
  output.augment.random_flip = true;
  output.augment.random_crop_padding = 2;
  return transform::MakeOutputSpec(transform::MakeNormalizeParams(mean, std, 3, 3), kShape, output,
                                   seed);
}

// The gatherer's options: one array field of kFieldBytes a row (FieldValues), the rest as
// defaulted.
pipeline::BatchGatherer::Options ArrayFieldOptions(int64_t rows) {
  pipeline::BatchGatherer::Options options;
  options.array_fields = {{.column = FieldValues(rows), .row_bytes = kFieldBytes}};
  return options;
}

// One run's wiring, for the CPU path (echo on the host) or the GPU path (echo on the device).
struct Run {
  Run(int echo, bool device_echo, int slots = 3)
      : data(200, 16, kShape),
        cache(data.chunk_bytes(), 1 << 20, cache::EvictionPolicy::kBelady, data.LoadFunction()),
        layout(kBatch, kShape,
               device_echo ? memory::SlotContents{0, echo, {kFieldBytes}}
                           : memory::SlotContents{static_cast<size_t>(Spec(7).image_bytes()),
                                                  0,
                                                  {kFieldBytes}}),
        pool(slots, layout.bytes(), nullptr),
        gatherer(cache, RowLocator(static_cast<int64_t>(data.labels().size()), 16, kShape),
                 kShape.bytes(), data.labels(),
                 ArrayFieldOptions(static_cast<int64_t>(data.labels().size()))),
        arena(2) {
    options.seed = 7;
    options.echo = device_echo ? 1 : echo;
    options.device_echo = device_echo ? echo : 0;
    if (!device_echo) {
      options.output = transform::OutputViews{{Spec(7)}, {Spec(7).image_bytes()}, {0}, {}};
    }
  }

  std::unique_ptr<pipeline::BatchAssembler> Start(int64_t first_step, int64_t epoch = 2) {
    auto plan = std::make_shared<const pipeline::EpochPlan>(
        epoch, sampler::Permutation(200, epoch), kBatch, false,
        ChunkRows((16) * (data.chunk_count()), 16));
    cache.SetPlan(plan->access());
    return std::make_unique<pipeline::BatchAssembler>(
        std::move(plan), first_step,
        pipeline::AssemblerResources{&cache, &pool, &layout, &gatherer, &arena}, options);
  }

  testing::SyntheticDataset data;
  cache::ChunkCache cache;
  memory::SlotLayout layout;
  memory::SlotPool pool;
  pipeline::BatchGatherer gatherer;
  tbb::task_arena arena;
  pipeline::AssemblerOptions options;
};

// The assembler's loaded steps are 24 rows of sampler::Permutation(200, epoch): the first that
// holds a row of chunk `chunk` (16 rows each), which fails when the chunk is corrupt.
int64_t FirstStepOfChunk(int64_t chunk, int64_t epoch = 2) {
  const std::vector<int64_t> order = sampler::Permutation(200, epoch);
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] / 16 == chunk) return static_cast<int64_t>(i) / kBatch;
  }
  FAIL("chunk not in the order");
  return -1;
}

std::string MessageOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

struct Delivered {
  int64_t step = 0;
  std::vector<uint8_t> images;
  std::vector<int64_t> labels;
  std::vector<int64_t> indices;
  std::vector<uint8_t> field;
  bool operator==(const Delivered&) const = default;
};

// The field's rows of a delivered batch, checked against its rows.
std::vector<uint8_t> FieldOf(std::span<const uint8_t> field, const std::vector<int64_t>& indices) {
  std::vector<uint8_t> values(field.begin(),
                              field.begin() + static_cast<long>(indices.size() * kFieldBytes));
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::vector<uint8_t> expected = FieldRow(indices[i]);
    CHECK(std::equal(expected.begin(), expected.end(), values.begin() + static_cast<long>(i * 3)));
  }
  return values;
}

std::vector<Delivered> CpuPath(int echo, int64_t first_step) {
  Run run(echo, false);
  auto assembler = run.Start(first_step);
  std::vector<Delivered> batches;
  while (true) {
    pipeline::PipelineEvent event = assembler->Next();
    if (!std::holds_alternative<pipeline::AssembledBatch>(event)) break;
    const auto& batch = std::get<pipeline::AssembledBatch>(event);
    const auto rows = static_cast<size_t>(batch.rows);
    Delivered d;
    d.step = batch.step;
    d.images.assign(
        batch.view.output.begin(),
        batch.view.output.begin() + static_cast<long>(rows * run.layout.output_image_bytes()));
    d.labels.assign(batch.view.labels.begin(), batch.view.labels.begin() + batch.rows);
    d.indices.assign(batch.view.indices.begin(), batch.view.indices.begin() + batch.rows);
    d.field = FieldOf(batch.view.fields.at(0), d.indices);
    batches.push_back(std::move(d));
  }
  return batches;
}

std::vector<Delivered> DevicePath(int echo, int64_t first_step, HostStage* stage_out = nullptr) {
  Run run(echo, true);
  HostStage stage(Spec(7), 2);
  DeviceFeed feed(stage, run.layout, echo);
  feed.Restart(static_cast<int>(first_step % echo));
  auto assembler = run.Start(first_step / echo);
  std::vector<Delivered> batches;
  while (true) {
    DeviceEvent event = feed.Next(*assembler);
    if (!std::holds_alternative<DeviceDelivery>(event)) {
      CHECK(std::holds_alternative<pipeline::EndOfEpoch>(event));
      break;
    }
    auto& delivery = std::get<DeviceDelivery>(event);
    const auto* images = static_cast<const uint8_t*>(delivery.device->images());
    Delivered d;
    d.step = delivery.step;
    d.images.assign(images,
                    images + delivery.labels.size() * static_cast<size_t>(Spec(7).image_bytes()));
    d.labels.assign(delivery.device->labels(), delivery.device->labels() + delivery.labels.size());
    // The host arrays are permuted by the order the device permuted the labels and images by.
    CHECK(std::equal(d.labels.begin(), d.labels.end(), delivery.labels.begin(),
                     delivery.labels.end()));
    d.indices.assign(delivery.indices.begin(), delivery.indices.end());
    CHECK(d.indices == dynamic_cast<const HostStage::Batch&>(*delivery.device).index_values);
    d.field = FieldOf(delivery.fields.at(0), d.indices);
    batches.push_back(std::move(d));
  }
  if (stage_out) {
    stage_out->loads = stage.loads;
    stage_out->emits = stage.emits;
  }
  return batches;
}

TEST_CASE("each loaded batch is copied once and its echo copies equal the CPU path's") {
  for (int echo : {1, 3}) {
    CAPTURE(echo);
    HostStage counts(Spec(7), 2);
    const std::vector<Delivered> device = DevicePath(echo, 0, &counts);
    const std::vector<Delivered> cpu = CpuPath(echo, 0);
    REQUIRE(device.size() == cpu.size());
    CHECK(device.size() == static_cast<size_t>(9 * echo));  // ceil(200 / 24) loaded steps
    for (size_t i = 0; i < device.size(); ++i) {
      CHECK(device[i].step == static_cast<int64_t>(i));
      CHECK(device[i] == cpu[i]);
    }
    CHECK(counts.loads == 9);
    CHECK(counts.emits == 9 * echo);
  }
}

TEST_CASE("a run resumed mid-echo starts at the copy it stopped at") {
  const std::vector<Delivered> whole = DevicePath(3, 0);
  for (int64_t step : {4, 5, 6, 26}) {
    CAPTURE(step);
    const std::vector<Delivered> rest = DevicePath(3, step);
    REQUIRE(rest.size() + static_cast<size_t>(step) == whole.size());
    for (size_t i = 0; i < rest.size(); ++i) CHECK(rest[i] == whole[i + static_cast<size_t>(step)]);
  }
}

TEST_CASE("a trainer holding every device buffer gets an error, then batches once it lets go") {
  Run run(1, true);
  HostStage stage(Spec(7), 2);
  DeviceFeed feed(stage, run.layout, 1);
  feed.Restart(0);
  auto assembler = run.Start(0);
  std::vector<DeviceEvent> held;
  held.push_back(feed.Next(*assembler));
  held.push_back(feed.Next(*assembler));
  try {
    feed.Next(*assembler);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()).find("holds every device batch") != std::string::npos);
  }
  held.clear();
  DeviceEvent next = feed.Next(*assembler);
  REQUIRE(std::holds_alternative<DeviceDelivery>(next));
  CHECK(std::get<DeviceDelivery>(next).step == 2);  // nothing was skipped
}

TEST_CASE("copies of a loaded batch still to make are ready without the host pipeline") {
  Run run(3, true);
  HostStage stage(Spec(7), 2);
  DeviceFeed feed(stage, run.layout, 3);
  feed.Restart(0);
  auto assembler = run.Start(0);
  std::vector<DeviceEvent> held;
  held.push_back(feed.Next(*assembler));  // copy 0; copy 1 is made ahead in the other buffer
  held.push_back(feed.Next(*assembler));  // copy 1; copy 2 waits for a buffer
  CHECK(stage.free_outputs() == 0);
  held.erase(held.begin());
  // Copy 2 needs only the buffer just released, not another batch of the assembler.
  CHECK(feed.ready());
  DeviceEvent next = feed.Next(*assembler);
  REQUIRE(std::holds_alternative<DeviceDelivery>(next));
  CHECK(std::get<DeviceDelivery>(next).step == 2);
}

TEST_CASE("restarting drops the batches made ahead and gives back the loaded input") {
  Run run(3, true);
  HostStage stage(Spec(7), 3);
  DeviceFeed feed(stage, run.layout, 3);
  feed.Restart(0);
  auto assembler = run.Start(0);
  { DeviceEvent first = feed.Next(*assembler); }  // copy 0 (copy 1 may be made ahead)
  CHECK(stage.free_inputs() == 1);                // copy 2 of the loaded batch is still to come
  assembler.reset();
  feed.Restart(0);
  CHECK(stage.free_inputs() == 2);
  CHECK(stage.free_outputs() == 3);
  assembler = run.Start(0);
  DeviceEvent again = feed.Next(*assembler);
  REQUIRE(std::holds_alternative<DeviceDelivery>(again));
  CHECK(std::get<DeviceDelivery>(again).step == 0);
}

TEST_CASE("a copy's host labels and rows are its own: valid after its slot is reused") {
  const std::vector<Delivered> cpu = CpuPath(3, 0);
  Run run(3, true);
  HostStage stage(Spec(7), 3);
  DeviceFeed feed(stage, run.layout, 3);
  feed.Restart(0);
  auto assembler = run.Start(0);
  DeviceEvent first = feed.Next(*assembler);  // copy 0 of loaded step 0, held to the end
  REQUIRE(std::holds_alternative<DeviceDelivery>(first));
  int64_t delivered = 1;
  while (std::holds_alternative<DeviceDelivery>(feed.Next(*assembler))) ++delivered;
  CHECK(delivered == 27);  // every slot was reused several times meanwhile
  const DeviceDelivery& held = std::get<DeviceDelivery>(first);
  CHECK(std::vector<int64_t>(held.labels.begin(), held.labels.end()) == cpu[0].labels);
  CHECK(std::vector<int64_t>(held.indices.begin(), held.indices.end()) == cpu[0].indices);
}

TEST_CASE("the run's error comes after the same batches as on the CPU path, then again") {
  const int64_t failing = FirstStepOfChunk(5);
  Run run(3, true);
  run.data.Corrupt(5);
  HostStage stage(Spec(7), 2);
  DeviceFeed feed(stage, run.layout, 3);
  feed.Restart(0);
  auto assembler = run.Start(0);
  int64_t steps = 0;
  DeviceEvent event = feed.Next(*assembler);
  for (; std::holds_alternative<DeviceDelivery>(event); event = feed.Next(*assembler)) {
    CHECK(std::get<DeviceDelivery>(event).step == steps++);
  }
  CHECK(steps == failing * 3);  // every copy of every step before the failing one
  REQUIRE(std::holds_alternative<std::exception_ptr>(event));
  const std::string message = MessageOf(std::get<std::exception_ptr>(event));
  CHECK(message.find("chunk 5") != std::string::npos);
  CHECK(message.find("step " + std::to_string(failing) + " of epoch 2") != std::string::npos);
  // The same error at every later ask (the assembler's: the feed keeps no copy).
  for (int ask = 0; ask < 3; ++ask) {
    DeviceEvent again = feed.Next(*assembler);
    REQUIRE(std::holds_alternative<std::exception_ptr>(again));
    CHECK(std::get<std::exception_ptr>(again) == std::get<std::exception_ptr>(event));
  }
  CHECK(assembler->ended());
  CHECK_FALSE(feed.ready());
}

TEST_CASE("once the run has ended, its end repeats and needs no free device buffer") {
  Run run(1, true);
  HostStage stage(Spec(7), 2);
  DeviceFeed feed(stage, run.layout, 1);
  feed.Restart(0);
  auto assembler = run.Start(0);
  std::deque<DeviceEvent> held;  // the batch before the one asked for, and at the end both
  for (int64_t step = 0; step < 9; ++step) {
    while (held.size() > 1) held.pop_front();
    held.push_back(feed.Next(*assembler));
    REQUIRE(std::holds_alternative<DeviceDelivery>(held.back()));
  }
  CHECK(stage.free_outputs() == 0);
  while (!assembler->ended()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(std::holds_alternative<pipeline::EndOfEpoch>(feed.Next(*assembler)));
  CHECK(std::holds_alternative<pipeline::EndOfEpoch>(feed.Next(*assembler)));
}

}  // namespace
}  // namespace h5feed::loader
