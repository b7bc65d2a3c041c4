// The tables of loader_option_table.h: one line per NativeLoader keyword and per augmentation
// spec key. A new LoaderOptions field reaches Python with a line here and one in
// h5feed/_options.py's LOADER_OPTIONS.

#include "loader_option_table.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace h5feed::python {

// The tables stay as written: clang-format 14 misreads a lambda's `-> auto&` in a braced list
// (it splits the entries over lines and inserts a namespace comment between them).
// clang-format off
const OptionTable<LoaderOptions>& OptionTableOf<LoaderOptions>::Get() {
  static const OptionTable<LoaderOptions> table = {
      {"batch_size", [](auto& o) -> auto& { return o.batch_size; }},
      {"sampler", [](auto& o) -> auto& { return o.sampler; }},
      {"seed", [](auto& o) -> auto& { return o.seed; }},
      {"rank", "shard.rank", [](auto& o) -> auto& { return o.shard.rank; }},
      {"world_size", "shard.world_size", [](auto& o) -> auto& { return o.shard.world_size; }},
      {"drop_last_batch", [](auto& o) -> auto& { return o.drop_last_batch; }},
      {"shard_drop_last", "shard.drop_last", [](auto& o) -> auto& { return o.shard.drop_last; }},
      {"cache_bytes", [](auto& o) -> auto& { return o.cache_bytes; }},
      {"threads", [](auto& o) -> auto& { return o.threads; }},
      {"slots", [](auto& o) -> auto& { return o.slots; }},
      {"held_batches", [](auto& o) -> auto& { return o.held_batches; }},
      {"echo", [](auto& o) -> auto& { return o.echo; }},
      {"normalize", [](auto& o) -> auto& { return o.normalize; }},
      {"mean", [](auto& o) -> auto& { return o.mean; }},
      {"std", [](auto& o) -> auto& { return o.std; }},
      {"output_type", "output.type", [](auto& o) -> auto& { return o.output.type; }},
      {"layout", "output.layout", [](auto& o) -> auto& { return o.output.layout; }},
      {"cuda_device", "output.cuda_device", [](auto& o) -> auto& { return o.output.cuda_device; }},
      {"cuda_stream", "output.cuda_stream", [](auto& o) -> auto& { return o.output.cuda_stream; }},
      {"mask_fill", "output.mask_fill", [](auto& o) -> auto& { return o.output.mask_fill; }},
      {"file_locking", [](auto& o) -> auto& { return o.file_locking; }},
      {"verify_checksums", [](auto& o) -> auto& { return o.verify_checksums; }},
      {"skip_corrupt_chunks", [](auto& o) -> auto& { return o.skip_corrupt_chunks; }},
      {"map_file", [](auto& o) -> auto& { return o.map_file; }},
      {"direct", [](auto& o) -> auto& { return o.direct; }},
      {"jpeg_region_decode", [](auto& o) -> auto& { return o.jpeg_region_decode; }},
      {"open_probe", [](auto& o) -> auto& { return o.open_probe; }},
      {"open_probe_stall_seconds", [](auto& o) -> auto& { return o.open_probe_stall_seconds; }},
      {"images_dataset", [](auto& o) -> auto& { return o.images_dataset; }},
      {"labels_dataset", [](auto& o) -> auto& { return o.labels_dataset; }},
      {"fields", [](auto& o) -> auto& { return o.fields; }},
      {"held_field_bytes", [](auto& o) -> auto& { return o.held_field_bytes; }},
      {"check_label_mixing", [](auto& o) -> auto& { return o.check_label_mixing; }},
      {"remote", [](auto& o) -> auto& { return o.remote; }},
  };
  return table;
}

const OptionTable<RemoteOptions>& OptionTableOf<RemoteOptions>::Get() {
  static const OptionTable<RemoteOptions> table = {
      {"connections", [](auto& o) -> auto& { return o.connections; }},
      {"retries", [](auto& o) -> auto& { return o.retries; }},
      {"connect_timeout_seconds", [](auto& o) -> auto& { return o.connect_timeout_seconds; }},
      {"stall_seconds", [](auto& o) -> auto& { return o.stall_seconds; }},
      {"spill_dir", [](auto& o) -> auto& { return o.spill_dir; }},
      {"spill_bytes", [](auto& o) -> auto& { return o.spill_bytes; }},
      {"s3_region", [](auto& o) -> auto& { return o.s3_region; }},
      {"s3_endpoint", [](auto& o) -> auto& { return o.s3_endpoint; }},
  };
  return table;
}

const OptionTable<AugmentOptions>& OptionTableOf<AugmentOptions>::Get() {
  static const OptionTable<AugmentOptions> table = {
      {"random_flip", [](auto& o) -> auto& { return o.random_flip; }},
      {"random_crop_padding", [](auto& o) -> auto& { return o.random_crop_padding; }},
      {"center_crop", [](auto& o) { return std::tie(o.center_crop_height, o.center_crop_width); }},
      {"resize_shorter", [](auto& o) -> auto& { return o.resize_shorter; }},
      {"random_resized_crop",
       [](auto& o) { return std::tie(o.random_resized_crop.height, o.random_resized_crop.width); }},
      {"scale", "random_resized_crop.scale", [](auto& o) {
         return std::tie(o.random_resized_crop.scale_min, o.random_resized_crop.scale_max);
       }},
      {"ratio", "random_resized_crop.ratio", [](auto& o) {
         return std::tie(o.random_resized_crop.ratio_min, o.random_resized_crop.ratio_max);
       }},
      {"antialias", [](auto& o) -> auto& { return o.antialias; }},
      {"count", [](auto& o) -> auto& { return o.count; }},
      {"max_output", [](auto& o) { return std::tie(o.max_output_height, o.max_output_width); }},
  };
  return table;
}
// clang-format on

namespace {

// Python's name of a field of `table` at `path`: the argument (`arguments`) of the field's key;
// "" for a field the table lacks.
template <typename Options>
std::string NameByTable(const OptionTable<Options>& table, std::string_view path,
                        const std::map<std::string, std::string, std::less<>>& arguments) {
  std::string_view rest;
  const OptionField<Options>* field = table.FindByPath(path, rest);
  if (field == nullptr) return "";
  const auto argument = arguments.find(field->key);
  return argument == arguments.end() ? field->key : argument->second;
}

// h5feed.Loader's methods by the C++ Loader's (option_names.h: a method's path ends in "()").
constexpr std::pair<std::string_view, std::string_view> kMethods[] = {
    {"SetEpoch()", "set_epoch"},
    {"Restore()", "load_state_dict"},
    {"State()", "state_dict"},
    {"SetOutputSize()", "set_output_size"},
};

}  // namespace

std::string PythonRemoteOptionName(std::string_view field) {
  const std::string key = NameByTable(OptionTableOf<RemoteOptions>::Get(), field, {});
  return key.empty() ? "" : "remote['" + key + "']";
}

OptionNames PythonOptionNames(std::map<std::string, std::string, std::less<>> arguments,
                              std::map<std::string, std::string, std::less<>> augment_arguments) {
  return [arguments = std::move(arguments),
          augment_arguments = std::move(augment_arguments)](std::string_view path) -> std::string {
    for (const auto& [method, name] : kMethods) {
      if (path == method) return std::string(name);
    }
    if (const auto named = arguments.find(path); named != arguments.end()) return named->second;
    // A view spec's field: output.augment.F is Augment(F=...) given as augment, output.views[i].F
    // the same in views[i].
    for (const std::string_view spec :
         {std::string_view("output.augment."), std::string_view("output.views[")}) {
      if (path.substr(0, spec.size()) != spec) continue;
      const size_t dot = path.find('.', spec.size() - 1);
      if (dot == std::string_view::npos) return "";
      const std::string field = NameByTable(OptionTableOf<AugmentOptions>::Get(),
                                            path.substr(dot + 1), augment_arguments);
      if (field.empty()) return "";
      const std::string owner =
          spec.back() == '.' ? "Augment" : std::string(path.substr(7, dot - 7));  // views[i]
      return owner + "." + field;
    }
    if (path.substr(0, 7) == "remote.") return PythonRemoteOptionName(path.substr(7));
    return NameByTable(OptionTableOf<LoaderOptions>::Get(), path, arguments);
  };
}

LoaderOptions LoaderOptionsFromKeywords(py::dict keywords) {
  // Python's names of the options, for the library's messages.
  std::map<std::string, std::string, std::less<>> arguments;
  std::map<std::string, std::string, std::less<>> augment_arguments;
  if (keywords.contains("option_names")) {
    arguments = keywords.attr("pop")("option_names").cast<decltype(arguments)>();
  }
  if (keywords.contains("augment_names")) {
    augment_arguments = keywords.attr("pop")("augment_names").cast<decltype(augment_arguments)>();
  }
  // The two go together, so they are read here rather than field by field.
  std::vector<AugmentOptions> specs;
  if (keywords.contains("augment")) Assign(keywords.attr("pop")("augment"), specs);
  const bool several_views =
      keywords.contains("several_views") && keywords.attr("pop")("several_views").cast<bool>();
  LoaderOptions options = OptionTableOf<LoaderOptions>::Get().FromDict(keywords, arguments);
  options.option_names = PythonOptionNames(std::move(arguments), std::move(augment_arguments));
  if (several_views) {
    options.output.views = std::move(specs);
  } else if (!specs.empty()) {
    options.output.augment = specs.front();
  }
  return options;
}

void BindOptionDefaults(py::module_& module) {
  module.def("loader_option_defaults",
             [] { return OptionTableOf<LoaderOptions>::Get().ToDict(LoaderOptions{}); });
  module.def("augment_option_defaults",
             [] { return OptionTableOf<AugmentOptions>::Get().ToDict(AugmentOptions{}); });
}

}  // namespace h5feed::python
