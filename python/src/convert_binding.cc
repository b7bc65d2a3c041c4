#include "convert_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cancellable_run.h"
#include "conversion.h"
#include "enum_names.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "output_path.h"
#include "report_value_object.h"
#include "sources/cifar_source.h"
#include "sources/coco_source.h"
#include "sources/encoded_hdf5_source.h"
#include "sources/hdf5_source.h"
#include "sources/image_folder_source.h"
#include "sources/npy_source.h"
#include "sources/segmentation_source.h"

namespace py = pybind11;

namespace h5feed::python {
namespace {

// ConvertOptions::option_names for the Python converters: each field by the keyword that sets
// it, a flag by what turns it on ("overwrite=True").
std::string ConvertArgumentOf(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> kArguments[] = {
      {"overwrite", "overwrite=True"},
      {"chunk_images", "chunk"},
      {"chunk_bytes", "chunk_bytes"},
      {"smart_threshold", "smart_threshold"},
      {"strict", "strict=True"},
      {"memory", "memory_limit"},
      {"size", "size"},
      {"max_side", "max_side"},
      {"max_pixels", "max_pixels"},
      {"allow_empty", "allow_empty=True"},
      {"keep_crowd", "keep_crowd=True"},
      {"image_suffix", "image_suffix"},
      {"mask_suffix", "mask_suffix"},
  };
  for (const auto& [field, argument] : kArguments) {
    if (field == path) return std::string(argument);
  }
  return "";
}

// How convert_segmentation and convert_coco fit their images (the Python side checked that
// size comes without max_side or a non-raw encoding).
converters::FitOptions FitOf(std::optional<std::pair<int, int>> size, const std::string& resize,
                             int64_t max_pixels, std::optional<int> max_side,
                             const py::dict& common) {
  converters::FitOptions fit;
  if (size) fit.size = converters::image::Size{size->first, size->second};
  fit.resize = ParseName<converters::image::ResizeMode>(resize);
  fit.max_side = max_side.value_or(converters::kDefaultMaxSide);
  fit.max_pixels = max_pixels;
  fit.threads = common["threads"].cast<int>();
  fit.option_names = ConvertArgumentOf;
  return fit;
}

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
  options.option_names = ConvertArgumentOf;
  options.strict = common["strict"].cast<bool>();
  if (common.contains("encoding")) {
    options.encoding = StoredEncoding::Parse(common["encoding"].cast<std::string>());
    options.smart_threshold = common["smart_threshold"].cast<int64_t>();
    options.chunk_bytes = converters::ParseMemorySize(common["chunk_bytes"].cast<std::string>());
  }
  return options;
}

namespace {

// Opens the source and converts it, Ctrl-C stopping it (cancellable_run.h); first refuses an
// output that is one of the source's `inputs` or inside one of them (output_path.h).
py::object RunConversion(const SourceOpener& open_source, const std::string& out,
                         const py::dict& common, const std::vector<std::string>& inputs) {
  converters::ConvertOptions options = MakeConvertOptions(common);
  const std::string problem =
      converters::OutputProblem(converters::PartPath(out, options.part), inputs);
  if (!problem.empty()) throw Error(ErrorCode::kInvalidArgument, problem);
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

// h5feed.convert_imagefolder and the converters' defaults.
void BindImageFolder(py::module_& module) {
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
        source.option_names = ConvertArgumentOf;
        return RunConversion(
            [&](converters::MemoryBudget& memory) {
              source.memory = &memory;
              return converters::OpenImageFolder(src, source);
            },
            out, common, {src});
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("size"), py::arg("resize"),
      py::arg("allow_empty"), py::arg("max_pixels"), py::arg("max_side"), py::arg("common"));
  module.attr("DEFAULT_MAX_PIXELS") = converters::kDefaultMaxPixels;
  module.attr("DEFAULT_MAX_SIDE") = converters::kDefaultMaxSide;
  module.attr("DEFAULT_SMART_THRESHOLD") = kDefaultSmartThreshold;
  module.attr("DEFAULT_MEMORY_LIMIT") = converters::kDefaultMemoryLimit;
}

// h5feed.convert_cifar and convert_npy: the arrays people have.
void BindArrays(py::module_& module) {
  module.def(
      "convert_cifar",
      [](const std::string& src, const std::string& out, const std::string& split,
         const std::string& labels, const py::dict& common) {
        converters::CifarOptions source;
        source.split = ParseName<converters::CifarOptions::Split>(split);
        source.labels = ParseName<converters::CifarOptions::Labels>(labels);
        return RunConversion(
            [&](converters::MemoryBudget&) { return converters::OpenCifar(src, source); }, out,
            common, {src});
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("split"), py::arg("labels"),
      py::arg("common"));

  module.def(
      "convert_npy",
      [](const std::string& images, const std::string& labels, const std::string& out,
         const std::vector<std::pair<std::string, std::string>>& fields, const py::dict& common) {
        std::vector<converters::NpyFieldFile> files;
        std::vector<std::string> inputs = {images, labels};
        for (const auto& [name, path] : fields) {
          files.push_back({name, path});
          inputs.push_back(path);
        }
        return RunConversion(
            [&](converters::MemoryBudget&) { return converters::OpenNpy(images, labels, files); },
            out, common, inputs);
      },
      py::arg("images"), py::arg("labels"), py::arg("out"), py::kw_only(), py::arg("fields"),
      py::arg("common"));
}

// h5feed.convert_segmentation and convert_coco: images with their masks or boxes.
void BindAnnotated(py::module_& module) {
  module.def(
      "convert_segmentation",
      [](const std::string& images, const std::string& masks, const std::string& out,
         std::optional<std::pair<int, int>> size, const std::string& resize,
         const std::string& image_suffix, const std::string& mask_suffix,
         const std::string& image_list, uint8_t mask_fill, int64_t max_pixels,
         std::optional<int> max_side, const py::dict& common) {
        converters::SegmentationOptions source;
        source.fit = FitOf(size, resize, max_pixels, max_side, common);
        source.fit.mask_fill = mask_fill;
        source.image_suffix = image_suffix;
        source.mask_suffix = mask_suffix;
        source.image_list = image_list;
        return RunConversion(
            [&](converters::MemoryBudget& memory) {
              source.fit.memory = &memory;
              return converters::OpenSegmentation(images, masks, source);
            },
            out, common, {images, masks, image_list});
      },
      py::arg("images"), py::arg("masks"), py::arg("out"), py::kw_only(), py::arg("size"),
      py::arg("resize"), py::arg("image_suffix"), py::arg("mask_suffix"), py::arg("image_list"),
      py::arg("mask_fill"), py::arg("max_pixels"), py::arg("max_side"), py::arg("common"));

  module.def(
      "convert_coco",
      [](const std::string& annotations, const std::string& images, const std::string& out,
         std::optional<std::pair<int, int>> size, const std::string& resize, bool keep_crowd,
         int64_t max_pixels, std::optional<int> max_side, const py::dict& common) {
        converters::CocoOptions source;
        source.fit = FitOf(size, resize, max_pixels, max_side, common);
        source.keep_crowd = keep_crowd;
        return RunConversion(
            [&](converters::MemoryBudget& memory) {
              source.fit.memory = &memory;
              return converters::OpenCoco(annotations, images, source);
            },
            out, common, {annotations, images});
      },
      py::arg("annotations"), py::arg("images"), py::arg("out"), py::kw_only(), py::arg("size"),
      py::arg("resize"), py::arg("keep_crowd"), py::arg("max_pixels"), py::arg("max_side"),
      py::arg("common"));
}

// h5feed.rechunk: an HDF5 file, h5feed's or not, written again.
void BindRechunk(py::module_& module) {
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
        source.option_names = ConvertArgumentOf;
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
            out, common, {src});
      },
      py::arg("src"), py::arg("out"), py::kw_only(), py::arg("images"), py::arg("labels"),
      py::arg("fields"), py::arg("max_side"), py::arg("max_pixels"), py::arg("common"));
}

}  // namespace

void BindConvert(py::module_& module) {
  BindImageFolder(module);
  BindArrays(module);
  BindAnnotated(module);
  BindRechunk(module);
}

}  // namespace h5feed::python
