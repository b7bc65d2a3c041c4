#include "loader_binding.h"

#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "augment_binding.h"
#include "dlpack_capsule.h"
#include "held_batches.h"
#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "interruptible_wait.h"
#include "pending_warnings.h"
#include "remote_options_arg.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

ElementType ParseOutputType(const std::string& name) {
  if (name == "float32") return ElementType::kFloat32;
  if (name == "float16") return ElementType::kFloat16;
  if (name == "bfloat16") return ElementType::kBFloat16;
  throw Error(ErrorCode::kInvalidArgument,
              "output type '" + name + "': use float32, float16 or bfloat16");
}

FileLocking ParseFileLocking(const std::string& name) {
  if (name == "auto") return FileLocking::kAuto;
  if (name == "on") return FileLocking::kOn;
  if (name == "off") return FileLocking::kOff;
  throw Error(ErrorCode::kInvalidArgument, "file_locking '" + name + "': use auto, on or off");
}

Layout ParseLayout(const std::string& name) {
  if (name == "NCHW") return Layout::kNCHW;
  if (name == "NHWC") return Layout::kNHWC;
  throw Error(ErrorCode::kInvalidArgument, "layout '" + name + "': use NCHW or NHWC");
}

// Field for field what h5feed/_options.py computed; see loader_options.h for each meaning.
struct OpenArguments {
  int64_t batch_size;
  std::string sampler;
  uint64_t seed;
  int rank;
  int world_size;
  bool drop_last_batch;
  bool shard_drop_last;
  int64_t cache_bytes;
  int threads;
  int slots;
  int echo;
  bool normalize;
  std::array<float, 3> mean;
  std::array<float, 3> std;
  std::string output_type;
  std::string layout;
  std::vector<AugmentOptions> augment;  // one spec: output.augment; several_views: output.views
  bool several_views;
  int cuda_device;
  uintptr_t cuda_stream;
  std::string file_locking;
  bool verify_checksums;
  bool skip_corrupt_chunks;
  bool map_file;
  bool open_probe;
  int open_probe_stall_seconds;
  std::string images_dataset;
  std::string labels_dataset;
  bool check_label_mixing;
  RemoteOptions remote;

  LoaderOptions ToOptions() const {
    LoaderOptions options;
    options.images_dataset = images_dataset;
    options.labels_dataset = labels_dataset;
    options.batch_size = batch_size;
    options.drop_last_batch = drop_last_batch;
    options.sampler = SamplerOptions::Parse(sampler);
    options.seed = seed;
    options.shard = ShardOptions{rank, world_size, shard_drop_last};
    options.cache_bytes = cache_bytes;
    options.slots = slots;
    options.threads = threads;
    options.normalize = normalize;
    options.mean = mean;
    options.std = std;
    options.output.type = ParseOutputType(output_type);
    options.output.layout = ParseLayout(layout);
    if (several_views) {
      options.output.views = augment;
    } else if (!augment.empty()) {
      options.output.augment = augment.front();
    }
    options.output.cuda_device = cuda_device;
    options.output.cuda_stream = CudaStreamView::FromHandle(cuda_stream);
    options.echo = echo;
    options.file_locking = ParseFileLocking(file_locking);
    options.verify_checksums = verify_checksums;
    options.skip_corrupt_chunks = skip_corrupt_chunks;
    options.map_file = map_file;
    options.open_probe = open_probe;
    options.open_probe_stall_seconds = open_probe_stall_seconds;
    options.check_label_mixing = check_label_mixing;
    options.remote = remote;
    return options;
  }
};

// Owns the Loader. Used from the Python thread that iterates (the GIL serialises calls).
class NativeLoader {
 public:
  NativeLoader(const std::string& path, const OpenArguments& arguments)
      : warnings_(std::make_shared<PendingWarnings>()),
        loader_(Open(path, arguments.ToOptions(), warnings_)),
        held_(arguments.slots, arguments.echo),
        several_views_(arguments.several_views) {}

  void SetOutputSize(int64_t height, int64_t width, int spec) {
    loader_.SetOutputSize(height, width, spec);
  }

  void SetEpoch(int64_t epoch) {
    py::gil_scoped_release without_gil;  // stops the previous run: joins its thread
    loader_.SetEpoch(epoch);
  }

  // (images, labels[, indices]) as DLPack capsules, or None at the end of the epoch. Waits
  // without the GIL, in slices, so Ctrl-C interrupts a wait (KeyboardInterrupt), and raises
  // instead of waiting forever when Python holds every slot (held_batches.h).
  //
  // Only the images are the slot's memory (held_batches.h counts them). Labels and indices
  // are host copies that hold nothing of the batch, so keeping them (targets.append(labels))
  // never stalls the loader. Labels on the device are handed out as a view of the batch:
  // h5feed/_loader.py copies them on the loader's stream at once and lets the view go.
  py::object Next(bool with_indices) {
    std::optional<Batch> batch;
    WaitInterruptibly([&](std::chrono::milliseconds slice) {
      if (!loader_.WaitReady(slice)) {
        held_.CheckNotStarved();
        return false;
      }
      batch = loader_.Next();
      return true;
    });
    held_.BatchArrived();
    if (!batch) return py::none();
    std::vector<TensorView> image_views;
    for (int view = 0; view < batch->views(); ++view) {
      image_views.push_back(batch->image_tensor(view));
    }
    const TensorView label_view = batch->label_tensor();
    const bool labels_on_device = label_view.cuda_device >= 0;
    std::optional<py::capsule> labels;
    if (!labels_on_device) labels = MakeCopiedDlpackCapsule(batch->labels());
    std::optional<py::capsule> indices;
    if (with_indices) indices = MakeCopiedDlpackCapsule(batch->indices());
    std::shared_ptr<const void> owner = held_.Hold(std::move(*batch));
    if (labels_on_device) labels = MakeDlpackCapsule(owner, label_view);
    // With output.views, a tuple of every view's images; else the one images tensor.
    py::object images = MakeDlpackCapsule(owner, image_views.front());
    if (several_views_) {
      py::tuple views(image_views.size());
      for (size_t v = 0; v < image_views.size(); ++v) {
        views[v] = MakeDlpackCapsule(owner, image_views[v]);
      }
      images = std::move(views);
    }
    if (!indices) return py::make_tuple(std::move(images), std::move(*labels));
    return py::make_tuple(std::move(images), std::move(*labels), std::move(*indices));
  }

  int held_batches() const { return held_.held(); }

  // The loader's warnings since the last call (h5feed.Loader passes them to warnings.warn).
  std::vector<std::string> TakeWarnings() { return warnings_->Take(); }

  py::tuple State() const {
    const LoaderState state = loader_.State();
    return py::make_tuple(state.epoch, state.step, state.seed, state.fingerprint);
  }

  void Restore(int64_t epoch, int64_t step, uint64_t seed, uint64_t fingerprint) {
    py::gil_scoped_release without_gil;
    loader_.Restore(LoaderState{epoch, step, seed, fingerprint});
  }

  int64_t batches_per_epoch() const { return loader_.batches_per_epoch(); }
  int64_t samples_per_epoch() const { return loader_.samples_per_epoch(); }

  py::dict Dataset() const {
    const DatasetInfo& info = loader_.dataset();
    py::dict dataset;
    dataset["path"] = info.path;
    dataset["samples"] = info.samples;
    dataset["image_shape"] = py::make_tuple(info.image_shape.height, info.image_shape.width,
                                            info.image_shape.channels);
    dataset["chunk_samples"] = info.chunk_samples;
    dataset["chunks"] = info.chunks;
    dataset["classes"] = info.classes;
    return dataset;
  }

  py::dict Stats() const {
    const LoaderStats stats = loader_.stats();
    py::dict result;
    result["batches"] = stats.batches;
    result["samples"] = stats.samples;
    result["chunk_reads"] = stats.chunk_reads;
    result["chunk_reads_ahead"] = stats.chunk_reads_ahead;
    result["cache_hits"] = stats.cache_hits;
    result["cache_misses"] = stats.cache_misses;
    result["bytes_read"] = stats.bytes_read;
    result["bytes_decoded"] = stats.bytes_decoded;
    result["corrupt_chunks_skipped"] = stats.corrupt_chunks_skipped;
    result["samples_skipped"] = stats.samples_skipped;
    result["wait_seconds"] = stats.wait_seconds;
    return result;
  }

 private:
  static Loader Open(const std::string& path, LoaderOptions options,
                     const std::shared_ptr<PendingWarnings>& warnings) {
    // The callback shares the list, so its lifetime never depends on the order of members.
    options.on_warning = [warnings](const std::string& warning) { warnings->Add(warning); };
    py::gil_scoped_release without_gil;  // reads the file's index and commits the cache
    return Loader::Open(path, options);
  }

  std::shared_ptr<PendingWarnings> warnings_;  // before loader_: Open hands it its warnings
  Loader loader_;
  HeldBatches held_;
  const bool several_views_;
};

}  // namespace

void BindLoader(py::module_& module) {
  py::class_<NativeLoader>(module, "NativeLoader")
      .def(py::init([](const std::string& path, int64_t batch_size, const std::string& sampler,
                       uint64_t seed, int rank, int world_size, bool drop_last_batch,
                       bool shard_drop_last, int64_t cache_bytes, int threads, int slots,
                       int echo, bool normalize, std::array<float, 3> mean,
                       std::array<float, 3> std, const std::string& output_type,
                       const std::string& layout, const py::list& augment, bool several_views,
                       int cuda_device, uintptr_t cuda_stream,
                       const std::string& file_locking, bool verify_checksums,
                       bool skip_corrupt_chunks, bool map_file, bool open_probe,
                       int open_probe_stall_seconds, const std::string& images_dataset,
                       const std::string& labels_dataset, bool check_label_mixing,
                       const py::dict& remote) {
             const OpenArguments arguments{
                 .batch_size = batch_size,
                 .sampler = sampler,
                 .seed = seed,
                 .rank = rank,
                 .world_size = world_size,
                 .drop_last_batch = drop_last_batch,
                 .shard_drop_last = shard_drop_last,
                 .cache_bytes = cache_bytes,
                 .threads = threads,
                 .slots = slots,
                 .echo = echo,
                 .normalize = normalize,
                 .mean = mean,
                 .std = std,
                 .output_type = output_type,
                 .layout = layout,
                 .augment = AugmentSpecs(augment),
                 .several_views = several_views,
                 .cuda_device = cuda_device,
                 .cuda_stream = cuda_stream,
                 .file_locking = file_locking,
                 .verify_checksums = verify_checksums,
                 .skip_corrupt_chunks = skip_corrupt_chunks,
                 .map_file = map_file,
                 .open_probe = open_probe,
                 .open_probe_stall_seconds = open_probe_stall_seconds,
                 .images_dataset = images_dataset,
                 .labels_dataset = labels_dataset,
                 .check_label_mixing = check_label_mixing,
                 .remote = RemoteOptionsFromDict(remote)};
             return std::make_unique<NativeLoader>(path, arguments);
           }),
           py::arg("path"), py::kw_only(), py::arg("batch_size"), py::arg("sampler"),
           py::arg("seed"), py::arg("rank"), py::arg("world_size"), py::arg("drop_last_batch"),
           py::arg("shard_drop_last"), py::arg("cache_bytes"), py::arg("threads"),
           py::arg("slots"), py::arg("echo"), py::arg("normalize"), py::arg("mean"),
           py::arg("std"), py::arg("output_type"), py::arg("layout"), py::arg("augment"),
           py::arg("several_views"), py::arg("cuda_device"),
           py::arg("cuda_stream"), py::arg("file_locking"), py::arg("verify_checksums"),
           py::arg("skip_corrupt_chunks"), py::arg("map_file"), py::arg("open_probe"),
           py::arg("open_probe_stall_seconds"),
           py::arg("images_dataset"), py::arg("labels_dataset"),
           py::arg("check_label_mixing"), py::arg("remote"))
      .def("set_epoch", &NativeLoader::SetEpoch, py::arg("epoch"))
      .def("set_output_size", &NativeLoader::SetOutputSize, py::arg("height"), py::arg("width"),
           py::arg("spec"))
      .def("next", &NativeLoader::Next, py::arg("with_indices"))
      .def("state", &NativeLoader::State)
      .def("restore", &NativeLoader::Restore, py::arg("epoch"), py::arg("step"), py::arg("seed"),
           py::arg("fingerprint"))
      .def_property_readonly("batches_per_epoch", &NativeLoader::batches_per_epoch)
      .def_property_readonly("samples_per_epoch", &NativeLoader::samples_per_epoch)
      .def_property_readonly("dataset", &NativeLoader::Dataset)
      .def("stats", &NativeLoader::Stats)
      .def_property_readonly("held_batches", &NativeLoader::held_batches)
      .def("take_warnings", &NativeLoader::TakeWarnings);
}

}  // namespace h5feed::python
