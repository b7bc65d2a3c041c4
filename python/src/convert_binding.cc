#include "convert_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cancellable_run.h"
#include "conversion.h"
#include "enum_names.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "report_value_object.h"
#include "sources/cifar_source.h"
#include "sources/encoded_hdf5_source.h"
#include "sources/hdf5_source.h"
#include "sources/image_folder_source.h"
#include "sources/npy_source.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

// Opens the source, given the conversion's memory budget (for a source that decodes in it).
using SourceOpener =
    std::function<std::unique_ptr<converters::SampleSource>(converters::MemoryBudget&)>;

}  // namespace

converters::ConvertOptions MakeConvertOptions(const py::dict& common) {
  converters::ConvertOptions options;
  options.chunk_images = common["chunk"].cast<int64_t>();
  options.compression = Compression::Parse(common["compression"].cast<std::string>());
  options.shuffle = common["shuffle"].cast<bool>();
  options.seed = common["seed"].cast<uint64_t>();
  options.threads = common["threads"].cast<int>();
  options.overwrite = common["overwrite"].cast<bool>();
  options.option_names = [](std::string_view path) {
    return path == "overwrite" ? std::string("overwrite=True") : std::string();
  };
  options.strict = common["strict"].cast<bool>();
  if (common.contains("encoding")) {
    options.encoding = StoredEncoding::Parse(common["encoding"].cast<std::string>());
    options.smart_threshold = common["smart_threshold"].cast<int64_t>();
    options.chunk_bytes = converters::ParseMemorySize(common["chunk_bytes"].cast<std::string>());
  }
  return options;
}

namespace {

// Opens the source and converts it, Ctrl-C stopping it (cancellable_run.h).
py::object RunConversion(const SourceOpener& open_source, const std::string& out,
                         const py::dict& common) {
  converters::ConvertOptions options = MakeConvertOptions(common);
  converters::MemoryBudget budget(
      converters::ParseMemorySize(common["memory_limit"].cast<std::string>()));
  options.memory = &budget;
  const converters::ConvertReport report = RunCancellable([&](const std::atomic<bool>& cancel) {
    options.cancel = &cancel;
    std::unique_ptr<converters::SampleSource> source = open_source(budget);
    return converters::Convert(*source, out, options);
  });
  return ReportValueObject(converters::ConversionValue(report));
}

}  // namespace

void BindConvert(py::module_& module) {
  module.def(
      "convert_imagefolder",
      [](const std::string& src, const std::string& out, std::optional<std::pair<int, int>> size,
         const std::string& resize, bool allow_empty, int64_t max_pixels,
         std::optional<int> max_side, const py::dict& common) {
        converters::ImageFolderOptions source;
        const StoredEncoding encoding =
            StoredEncoding::Parse(common["encoding"].cast<std::string>());
        if (size && (max_side || encoding.kind != StoredEncoding::Kind::kRaw)) {
          throw MakeError(
              ErrorCode::kInvalidArgument,
              "size stores every image at one size, which leaves nothing for {} to do: give size, "
              "or max_side and encoding",
              (max_side ? "max_side" : "encoding " + encoding.ToString()));
        }
        if (size) source.size = converters::image::Size{size->first, size->second};
        source.max_side = max_side.value_or(converters::kDefaultMaxSide);
        source.own_size = encoding.kind != StoredEncoding::Kind::kRaw;
        source.resize = ParseName<converters::image::ResizeMode>(resize);
        source.allow_empty = allow_empty;
        source.max_pixels = max_pixels;
        source.threads = common["threads"].cast<int>();
        return RunConversion(
            [&](converters::MemoryBudget& memory) {
              source.memory = &memory;
              return converters::OpenImageFolder(src, source);
            },
            out, common);
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("size"), py::arg("resize"),
      py::arg("allow_empty"), py::arg("max_pixels"), py::arg("max_side"), py::arg("common"));
  module.attr("DEFAULT_MAX_PIXELS") = converters::kDefaultMaxPixels;
  module.attr("DEFAULT_MAX_SIDE") = converters::kDefaultMaxSide;
  module.attr("DEFAULT_SMART_THRESHOLD") = kDefaultSmartThreshold;
  module.attr("DEFAULT_MEMORY_LIMIT") = converters::kDefaultMemoryLimit;

  module.def(
      "convert_cifar",
      [](const std::string& src, const std::string& out, const std::string& split,
         const std::string& labels, const py::dict& common) {
        converters::CifarOptions source;
        source.split = ParseName<converters::CifarOptions::Split>(split);
        source.labels = ParseName<converters::CifarOptions::Labels>(labels);
        return RunConversion(
            [&](converters::MemoryBudget&) { return converters::OpenCifar(src, source); }, out,
            common);
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("split"), py::arg("labels"),
      py::arg("common"));

  module.def(
      "convert_npy",
      [](const std::string& images, const std::string& labels, const std::string& out,
         const std::vector<std::pair<std::string, std::string>>& fields, const py::dict& common) {
        std::vector<converters::NpyFieldFile> files;
        for (const auto& [name, path] : fields) files.push_back({name, path});
        return RunConversion(
            [&](converters::MemoryBudget&) { return converters::OpenNpy(images, labels, files); },
            out, common);
      },
      py::arg("images"), py::arg("labels"), py::arg("out"), py::kw_only(), py::arg("fields"),
      py::arg("common"));

  module.def(
      "rechunk",
      [](const std::string& src, const std::string& out, const std::string& images,
         const std::string& labels, std::optional<std::vector<std::string>> fields,
         std::optional<int> max_side, int64_t max_pixels, const py::dict& common) {
        converters::EncodedHdf5Options source;
        source.images = images;
        source.labels = labels;
        source.fields = std::move(fields);
        source.max_side = max_side.value_or(converters::kDefaultMaxSide);
        source.max_pixels = max_pixels;
        source.threads = common["threads"].cast<int>();
        return RunConversion(
            [&](converters::MemoryBudget& memory) {
              source.memory = &memory;
              std::unique_ptr<converters::SampleSource> opened =
                  converters::OpenRechunkSource(src, source);
              if (!opened->own_size() && max_side) {
                throw MakeError(
                    ErrorCode::kInvalidArgument,
                    "max_side applies to encoded images; {} holds an array of pixels, all of one "
                    "size, rewritten as they are",
                    src);
              }
              return opened;
            },
            out, common);
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("images"), py::arg("labels"),
      py::arg("fields"), py::arg("max_side"), py::arg("max_pixels"), py::arg("common"));
}

}  // namespace h5feed::python
