#include "write_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "conversion.h"
#include "convert_binding.h"
#include "deferred_release.h"
#include "enum_names.h"
#include "field_row_check.h"
#include "h5feed/error.h"
#include "h5feed/field.h"
#include "interruptible_wait.h"
#include "make_error.h"
#include "memory_budget.h"
#include "payload_queue.h"
#include "python_sample_source.h"
#include "report_value_object.h"
#include "sources/image_file_reader.h"
#include "stored_order.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

// A buffer larger than this is copied without the GIL: the copy then costs the other Python
// threads nothing, and a small one is not worth the GIL's hand-over.
constexpr size_t kCopyWithoutGilBytes = 64 << 10;

void CopyBuffer(const py::buffer& buffer, std::vector<uint8_t>& into) {
  const py::buffer_info info = buffer.request();
  const size_t bytes = static_cast<size_t>(info.size * info.itemsize);
  into.resize(bytes);
  if (bytes > kCopyWithoutGilBytes) {
    // The caller holds `buffer` for the whole call, so its memory stays put.
    py::gil_scoped_release without_gil;
    std::memcpy(into.data(), info.ptr, bytes);
  } else if (bytes != 0) {
    std::memcpy(into.data(), info.ptr, bytes);
  }
}

// What an encoded image's header may lease while it is read (its bytes, for an image that is
// not a file): one held at a time per caller, each under the writer's own file-size caps.
constexpr int64_t kHeaderBudgetBytes = int64_t{4} << 30;

// The (height, width) an encoded image (`kind` kEncoded: `data` its bytes) or an image file
// (kPath: `data` its path) declares, read as the writer will read it (ImageFileReader, the
// same decoders, h5feed's own limits and not PIL's), or (0, 0) when it cannot be read: the
// writer then skips the image, saying why. The size its masks and boxes are moved from.
std::pair<int, int> ImageHeaderSize(int kind, const std::string& data) {
  static converters::MemoryBudget budget(kHeaderBudgetBytes);
  static const converters::ImageFileReader reader(budget, /*max_pixels=*/0);
  py::gil_scoped_release without_gil;
  try {
    converters::image::Size size;
    if (kind == static_cast<int>(SamplePayload::Image::kPath)) {
      size = reader.ReadSize(data);
    } else {
      size = reader.ReadSize("image", [&data](const converters::ImageFileReader::Place& place) {
        uint8_t* into = place(static_cast<int64_t>(data.size()));
        if (into == nullptr) return false;
        std::memcpy(into, data.data(), data.size());
        return true;
      });
    }
    return {size.height, size.width};
  } catch (const Error&) {
    return {0, 0};
  }
}

class SampleWriter {
 public:
  // `value_bytes`: what a sample's bytes and text values are expected to take together
  // (ConvertOptions::value_bytes).
  SampleWriter(std::string out, PythonSourceOptions source_options, const py::dict& common,
               int64_t value_bytes)
      : out_(std::move(out)),
        budget_(converters::ParseMemorySize(common["memory_limit"].cast<std::string>())),
        // A quarter of the budget for samples waiting to be read: the chunk buffers take at most
        // half (chunk_buffer_reservation.h), decoding the rest.
        queue_bytes_(budget_.limit() / 4),
        queue_(queue_bytes_),
        options_(MakeConvertOptions(common)) {
    budget_.Reserve(queue_bytes_);
    source_options.option_names = options_.option_names;
    source_ = std::make_unique<PythonSampleSource>(std::move(source_options), budget_, queue_);
    options_.memory = &budget_;
    options_.value_bytes = value_bytes;
    options_.cancel = &cancel_;
    options_.on_progress = [this](const converters::ConvertProgress& progress) {
      done_samples_.store(progress.done);
      skipped_samples_.store(progress.skipped);
    };
    thread_ = std::thread([this] { Run(); });
  }

  ~SampleWriter() {
    Stop();
    queue_.Clear();
    releases_.Drain();
    budget_.Unreserve(queue_bytes_);
  }

  SampleWriter(const SampleWriter&) = delete;
  SampleWriter& operator=(const SampleWriter&) = delete;

  void Put(int64_t row, int image, const py::buffer& data, int height, int width, int channels,
           int64_t label, const std::vector<py::buffer>& fields) {
    if (image < 0 || image > static_cast<int>(SamplePayload::Image::kPixels)) {
      throw MakeError(ErrorCode::kInvalidArgument, "no image kind {}", image);
    }
    releases_.Drain();
    SamplePayload payload;
    payload.image = static_cast<SamplePayload::Image>(image);
    if (PyBytes_CheckExact(data.ptr())) {
      // Immutable: read where it is, by the conversion's threads, until they drop it.
      payload.bytes = {reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(data.ptr())),
                       static_cast<size_t>(PyBytes_GET_SIZE(data.ptr()))};
      payload.owner = releases_.Hold(data);
    } else {
      auto copy = std::make_shared<std::vector<uint8_t>>();
      CopyBuffer(data, *copy);
      payload.bytes = *copy;
      payload.owner = std::move(copy);
    }
    payload.height = height;
    payload.width = width;
    payload.channels = channels;
    payload.label = label;
    payload.fields.resize(fields.size());
    for (size_t f = 0; f < fields.size(); ++f) CopyBuffer(fields[f], payload.fields[f]);
    PayloadQueue::PutResult result = PayloadQueue::PutResult::kFull;
    WaitInterruptibly([&](std::chrono::milliseconds slice) {
      result = queue_.TryPut(row, payload, slice);
      return result != PayloadQueue::PutResult::kFull;
    });
    if (result == PayloadQueue::PutResult::kClosed) RaiseEnd();
  }

  // (samples read, samples offered, samples skipped), as the conversion last reported.
  py::tuple progress() const {
    return py::make_tuple(done_samples_.load(), source_->count(), skipped_samples_.load());
  }

  int64_t queue_bytes() const { return queue_bytes_; }

  // Waits for the conversion to end; its report, or what it threw.
  py::object Finish() {
    WaitInterruptibly([&](std::chrono::milliseconds slice) {
      std::unique_lock lock(mutex_);
      return ended_cv_.wait_for(lock, slice, [&] { return ended_; });
    });
    RaiseEnd();
    releases_.Drain();
    return ReportValueObject(converters::ConversionValue(*report_));
  }

  // Stops the conversion (its temporary file is removed) and waits for its thread. Safe to
  // call at any time and more than once.
  void Stop() {
    cancel_.store(true);
    queue_.Close();
    if (thread_.joinable()) {
      if (PyGILState_Check()) {
        py::gil_scoped_release without_gil;
        thread_.join();
      } else {
        thread_.join();
      }
    }
  }

 private:
  void Run() {
    try {
      report_ = converters::Convert(*source_, out_, options_);
    } catch (...) {
      error_ = std::current_exception();
    }
    queue_.Close();
    std::lock_guard lock(mutex_);
    ended_ = true;
    ended_cv_.notify_all();
  }

  // Once the conversion has ended (or is ending): joins it and rethrows what it threw.
  void RaiseEnd() {
    {
      py::gil_scoped_release without_gil;
      if (thread_.joinable()) thread_.join();
    }
    if (error_) std::rethrow_exception(error_);
    if (!report_) {
      throw Error(ErrorCode::kInternal, "the conversion ended before it was given every sample");
    }
  }

  const std::string out_;
  // Before queue_ and source_: their payloads' owners may give references back to it until
  // they are destroyed.
  DeferredRelease releases_;
  converters::MemoryBudget budget_;
  const int64_t queue_bytes_;
  PayloadQueue queue_;
  converters::ConvertOptions options_;
  std::unique_ptr<PythonSampleSource> source_;
  std::atomic<bool> cancel_{false};
  std::atomic<int64_t> done_samples_{0};
  std::atomic<int64_t> skipped_samples_{0};
  // Set by the conversion's thread before it ends (ended_ under mutex_); read after the join.
  std::optional<converters::ConvertReport> report_;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable ended_cv_;
  bool ended_ = false;  // guarded by mutex_
  std::thread thread_;
};

// A field as h5feed/_write_samples.py describes it: (name, kind, element type, shape, boxes),
// boxes the boxes field a box_labels or box_values field belongs to ("" for the other kinds).
using FieldTuple =
    std::tuple<std::string, std::string, std::string, std::vector<int64_t>, std::string>;

// The library's spec of `field`, checked by CheckFieldSpec (reserved names, shapes, types).
FieldSpec MakeFieldSpec(const FieldTuple& field) {
  const auto& [name, kind, type, shape, boxes] = field;
  FieldSpec spec;
  spec.name = name;
  spec.kind = ParseFieldKind(kind);
  if (spec.kind == FieldKind::kArray || spec.kind == FieldKind::kMask) {
    spec.type = ParseFieldType(type);
    spec.shape = shape;
  } else if (spec.kind == FieldKind::kBoxes) {
    spec.type = FieldType::kFloat32;
  } else if (spec.kind == FieldKind::kBoxLabels) {
    spec.type = FieldType::kInt64;
    spec.boxes = boxes;
  } else if (spec.kind == FieldKind::kBoxValues) {
    spec.type = ParseFieldType(type);
    spec.boxes = boxes;
  }
  CheckFieldSpec(spec);
  return spec;
}

}  // namespace

void BindWrite(py::module_& module) {
  module.def(
      "stored_order",
      [](int64_t count, bool shuffle, uint64_t seed) {
        const std::vector<int64_t> order = converters::StoredOrder(count, shuffle, seed);
        return py::bytes(reinterpret_cast<const char*>(order.data()),
                         order.size() * sizeof(int64_t));
      },
      py::arg("count"), py::arg("shuffle"), py::arg("seed"));
  module.def(
      "parse_memory_size",
      [](const std::string& text) { return converters::ParseMemorySize(text); }, py::arg("text"));
  module.def(
      "check_field_spec",
      [](const std::string& name, const std::string& kind, const std::string& type,
         const std::vector<int64_t>& shape, const std::string& boxes) {
        return MakeFieldSpec({name, kind, type, shape, boxes}).Describe();
      },
      py::arg("name"), py::arg("kind"), py::arg("type"), py::arg("shape"), py::arg("boxes") = "");
  py::class_<SampleWriter>(module, "SampleWriter")
      .def(py::init([](const std::string& out, int64_t count,
                       std::optional<std::pair<int, int>> size, const std::string& resize,
                       uint8_t mask_fill, int max_side, int channels, int64_t max_pixels,
                       std::vector<std::string> classes, const std::vector<FieldTuple>& fields,
                       bool labelled, const py::dict& common, int64_t value_bytes) {
             PythonSourceOptions source;
             for (const FieldTuple& field : fields) source.fields.push_back(MakeFieldSpec(field));
             source.labelled = labelled;
             source.count = count;
             if (size) source.size = converters::image::Size{size->first, size->second};
             source.resize = ParseName<converters::image::ResizeMode>(resize);
             source.mask_fill = mask_fill;
             source.max_side = max_side;
             source.channels = channels;
             source.max_pixels = max_pixels;
             source.classes = std::move(classes);
             return std::make_unique<SampleWriter>(out, std::move(source), common, value_bytes);
           }),
           py::arg("out"), py::arg("count"), py::kw_only(), py::arg("size"), py::arg("resize"),
           py::arg("mask_fill"), py::arg("max_side"), py::arg("channels"), py::arg("max_pixels"),
           py::arg("classes"), py::arg("fields"), py::arg("labelled"), py::arg("common"),
           py::arg("value_bytes") = 0)
      .def("put", &SampleWriter::Put, py::arg("row"), py::arg("image"), py::arg("data"),
           py::arg("height"), py::arg("width"), py::arg("channels"), py::arg("label"),
           py::arg("fields"))
      .def("progress", &SampleWriter::progress)
      .def_property_readonly("queue_bytes", &SampleWriter::queue_bytes)
      .def("finish", &SampleWriter::Finish)
      .def("cancel", &SampleWriter::Stop);
  module.def("image_header_size", &ImageHeaderSize, py::arg("kind"), py::arg("data"));
  module.attr("IMAGE_ENCODED") = static_cast<int>(SamplePayload::Image::kEncoded);
  module.attr("IMAGE_PATH") = static_cast<int>(SamplePayload::Image::kPath);
  module.attr("IMAGE_PIXELS") = static_cast<int>(SamplePayload::Image::kPixels);
  module.attr("MAX_FIELD_ROW_BYTES") = kMaxFieldRowBytes;
}

}  // namespace h5feed::python
