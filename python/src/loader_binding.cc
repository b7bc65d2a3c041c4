#include "loader_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cancellable_run.h"
#include "dlpack_capsule.h"
#include "field_objects.h"
#include "h5feed/loader.h"
#include "held_batches.h"
#include "interruptible_wait.h"
#include "loader_option_table.h"
#include "open_loader_count.h"
#include "opening_process.h"
#include "pending_warnings.h"
#include "report_value_object.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

// Owns the Loader, in the process that opened it: a forked child is refused, and abandons the
// loader rather than destroying it (opening_process.h).
//
// Thread-safety: any Python thread may call, one call at a time. The Loader is used from one
// thread at a time, but Next and SetEpoch release the GIL while they wait, so the GIL alone
// would let a second thread (two loops over one Loader, a trainer's state_dict beside a thread
// that iterates) tear the run down under a waiting Next: a use after free. Each call that
// reaches the Loader's run holds calls_ (OneCallAtATime).
class NativeLoader {
 public:
  NativeLoader(const std::string& path, LoaderOptions options)
      : warnings_(std::make_shared<PendingWarnings>()),
        loader_(Open(path, options, warnings_)),
        held_(options.slots + options.held_batches, options.echo),
        several_views_(!options.output.views.empty()) {}

  NativeLoader(const NativeLoader&) = delete;
  NativeLoader& operator=(const NativeLoader&) = delete;
  ~NativeLoader() {
    if (opened_in_.IsForkedChild()) OpeningProcess::Abandon(loader_);
  }

  void SetOutputSize(int64_t height, int64_t width, int spec) {
    opened_in_.RefuseForkedChild();
    const auto one_call = OneCallAtATime();
    loader_.SetOutputSize(height, width, spec);
  }

  void SetEpoch(int64_t epoch) {
    opened_in_.RefuseForkedChild();
    const auto one_call = OneCallAtATime();
    py::gil_scoped_release without_gil;  // stops the previous run: joins its thread
    loader_.SetEpoch(epoch);
  }

  // (images, labels, fields, indices) as DLPack capsules, or None at the end of the epoch:
  // labels None for a file without labels, fields a list with one object per field asked
  // (field_objects.h), indices None unless with_indices. Waits without the GIL, in slices, so
  // Ctrl-C interrupts a wait (KeyboardInterrupt), and raises instead of waiting forever when
  // Python holds every slot (held_batches.h).
  //
  // Only the images and the array fields are the slot's memory (held_batches.h counts the
  // batches they hold). Labels and indices are host copies that hold nothing of the batch, so
  // keeping them (targets.append(labels)) never stalls the loader. Labels on the device are
  // handed out as a view of the batch: h5feed/_loader.py copies them on the loader's stream at
  // once and lets the view go.
  py::object Next(bool with_indices) {
    opened_in_.RefuseForkedChild();
    const auto one_call = OneCallAtATime();
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
    const bool labelled = label_view.rank > 0;  // a file without labels: an empty view
    const bool labels_on_device = label_view.cuda_device >= 0;
    py::object labels = py::none();
    if (labelled && !labels_on_device) labels = MakeCopiedDlpackCapsule(batch->labels());
    py::object indices = py::none();
    if (with_indices) indices = MakeCopiedDlpackCapsule(batch->indices());
    std::vector<PendingField> fields = ReadFields(*batch);
    std::shared_ptr<const void> owner = held_.Hold(std::move(*batch));
    if (labelled && labels_on_device) labels = MakeDlpackCapsule(owner, label_view);
    // With output.views, a tuple of every view's images; else the one images tensor.
    py::object images = MakeDlpackCapsule(owner, image_views.front());
    if (several_views_) {
      py::tuple views(image_views.size());
      for (size_t v = 0; v < image_views.size(); ++v) {
        views[v] = MakeDlpackCapsule(owner, image_views[v]);
      }
      images = std::move(views);
    }
    return py::make_tuple(std::move(images), std::move(labels),
                          FieldObjects(std::move(fields), owner, several_views_),
                          std::move(indices));
  }

  py::list Fields() const { return FieldSpecTuples(loader_); }
  std::vector<std::string> StreamedFields() const { return loader_.streamed_fields(); }

  int held_batches() const { return held_.held(); }

  // The loader's warnings since the last call (h5feed.Loader passes them to warnings.warn).
  std::vector<std::string> TakeWarnings() { return warnings_->Take(); }

  // LoaderState's fields in its order, the stretches as (world_size, steps) pairs; h5feed's
  // _loader.py makes the state_dict of them and checks a state_dict's before Restore.
  py::tuple State() const {
    const auto one_call = OneCallAtATime();
    const LoaderState state = loader_.State();
    std::vector<std::pair<int, int64_t>> stretches;
    for (const EpochStretch& stretch : state.stretches) {
      stretches.emplace_back(stretch.world_size, stretch.steps);
    }
    return py::make_tuple(state.epoch, state.step, state.seed, state.fingerprint, state.world_size,
                          stretches, state.order_key);
  }

  void Restore(int64_t epoch, int64_t step, uint64_t seed, uint64_t fingerprint, int world_size,
               const std::vector<std::pair<int, int64_t>>& stretches,
               const std::string& order_key) {
    opened_in_.RefuseForkedChild();
    const auto one_call = OneCallAtATime();
    LoaderState state;
    state.epoch = epoch;
    state.step = step;
    state.seed = seed;
    state.fingerprint = fingerprint;
    state.world_size = world_size;
    for (const auto& [stretch_world, steps] : stretches) {
      state.stretches.push_back(EpochStretch{stretch_world, steps});
    }
    state.order_key = order_key;
    py::gil_scoped_release without_gil;  // an elastic restore computes whole epoch orders
    loader_.Restore(state);
  }

  int64_t batches_per_epoch() const {
    const auto one_call = OneCallAtATime();  // Restore changes it
    return loader_.batches_per_epoch();
  }
  int64_t samples_per_epoch() const { return loader_.samples_per_epoch(); }

  // Loader.dataset and Loader.stats(): the library's trees (DatasetValue, StatsValue) as dicts.
  py::object Dataset() const { return ReportValueObject(DatasetValue(loader_.dataset())); }
  py::object Stats() const {
    opened_in_.RefuseForkedChild();  // the workers' counters, under their lock
    const auto one_call = OneCallAtATime();
    return ReportValueObject(StatsValue(loader_.stats()));
  }

 private:
  // calls_, taken for one call. A thread that finds it taken waits for it without the GIL,
  // which the call in progress needs again to finish. The thread that holds it takes it again:
  // Next runs Python's signal handlers while it waits, and a handler that checkpoints on a
  // signal (a cluster's preemption notice) calls state_dict() there.
  std::unique_lock<std::recursive_mutex> OneCallAtATime() const {
    std::unique_lock lock(calls_, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release without_gil;
      lock.lock();
    }
    return lock;
  }

  static Loader Open(const std::string& path, LoaderOptions options,
                     const std::shared_ptr<PendingWarnings>& warnings) {
    // The callback shares the list, so its lifetime never depends on the order of members.
    options.on_warning = [warnings](const std::string& warning) { warnings->Add(warning); };
    // Reads the file's index and commits the cache, without the GIL; a remote file's requests
    // wait for its server, with retries, for as long as the remote options allow: on Ctrl-C
    // they end at once (RemoteOptions::cancel, shared by the files the open leaves open, which
    // never see it set) and KeyboardInterrupt is raised once the open has unwound.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    options.remote.cancel = cancel;
    return RunCancellable(*cancel,
                          [&](const std::atomic<bool>&) { return Loader::Open(path, options); });
  }

  const OpeningProcess opened_in_;
  const OpenLoaderCount counted_;       // before loader_: a forked child is refused before it opens
  mutable std::recursive_mutex calls_;  // held by the call in progress (OneCallAtATime)
  std::shared_ptr<PendingWarnings> warnings_;  // before loader_: Open hands it its warnings
  Loader loader_;
  HeldBatches held_;
  const bool several_views_;
};

}  // namespace

void BindLoader(py::module_& module) {
  BindOptionDefaults(module);
  py::class_<NativeLoader>(module, "NativeLoader")
      // The keywords are h5feed/_options.py's native_arguments (loader_option_table.h).
      .def(py::init([](const std::string& path, const py::kwargs& keywords) {
             return std::make_unique<NativeLoader>(path, LoaderOptionsFromKeywords(keywords));
           }),
           py::arg("path"))
      .def("set_epoch", &NativeLoader::SetEpoch, py::arg("epoch"))
      .def("set_output_size", &NativeLoader::SetOutputSize, py::arg("height"), py::arg("width"),
           py::arg("spec"))
      .def("next", &NativeLoader::Next, py::arg("with_indices"))
      .def("state", &NativeLoader::State)
      .def("restore", &NativeLoader::Restore, py::arg("epoch"), py::arg("step"), py::arg("seed"),
           py::arg("fingerprint"), py::arg("world_size"), py::arg("stretches"),
           py::arg("order_key"))
      .def_property_readonly("batches_per_epoch", &NativeLoader::batches_per_epoch)
      .def_property_readonly("samples_per_epoch", &NativeLoader::samples_per_epoch)
      .def_property_readonly("dataset", &NativeLoader::Dataset)
      .def_property_readonly("fields", &NativeLoader::Fields)
      .def_property_readonly("streamed_fields", &NativeLoader::StreamedFields)
      .def("stats", &NativeLoader::Stats)
      .def_property_readonly("held_batches", &NativeLoader::held_batches)
      .def("take_warnings", &NativeLoader::TakeWarnings);
}

}  // namespace h5feed::python
