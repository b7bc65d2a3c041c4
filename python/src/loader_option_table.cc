// The tables of loader_option_table.h: one line per NativeLoader keyword and per augmentation
// spec key. A new LoaderOptions field reaches Python with a line here and one in
// h5feed/_options.py's LOADER_OPTIONS.

#include "loader_option_table.h"

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
      {"rank", [](auto& o) -> auto& { return o.shard.rank; }},
      {"world_size", [](auto& o) -> auto& { return o.shard.world_size; }},
      {"drop_last_batch", [](auto& o) -> auto& { return o.drop_last_batch; }},
      {"shard_drop_last", [](auto& o) -> auto& { return o.shard.drop_last; }},
      {"cache_bytes", [](auto& o) -> auto& { return o.cache_bytes; }},
      {"threads", [](auto& o) -> auto& { return o.threads; }},
      {"slots", [](auto& o) -> auto& { return o.slots; }},
      {"echo", [](auto& o) -> auto& { return o.echo; }},
      {"normalize", [](auto& o) -> auto& { return o.normalize; }},
      {"mean", [](auto& o) -> auto& { return o.mean; }},
      {"std", [](auto& o) -> auto& { return o.std; }},
      {"output_type", [](auto& o) -> auto& { return o.output.type; }},
      {"layout", [](auto& o) -> auto& { return o.output.layout; }},
      {"cuda_device", [](auto& o) -> auto& { return o.output.cuda_device; }},
      {"cuda_stream", [](auto& o) -> auto& { return o.output.cuda_stream; }},
      {"file_locking", [](auto& o) -> auto& { return o.file_locking; }},
      {"verify_checksums", [](auto& o) -> auto& { return o.verify_checksums; }},
      {"skip_corrupt_chunks", [](auto& o) -> auto& { return o.skip_corrupt_chunks; }},
      {"map_file", [](auto& o) -> auto& { return o.map_file; }},
      {"jpeg_region_decode", [](auto& o) -> auto& { return o.jpeg_region_decode; }},
      {"open_probe", [](auto& o) -> auto& { return o.open_probe; }},
      {"open_probe_stall_seconds", [](auto& o) -> auto& { return o.open_probe_stall_seconds; }},
      {"images_dataset", [](auto& o) -> auto& { return o.images_dataset; }},
      {"labels_dataset", [](auto& o) -> auto& { return o.labels_dataset; }},
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
      {"scale", [](auto& o) {
         return std::tie(o.random_resized_crop.scale_min, o.random_resized_crop.scale_max);
       }},
      {"ratio", [](auto& o) {
         return std::tie(o.random_resized_crop.ratio_min, o.random_resized_crop.ratio_max);
       }},
      {"antialias", [](auto& o) -> auto& { return o.antialias; }},
      {"count", [](auto& o) -> auto& { return o.count; }},
      {"max_output", [](auto& o) { return std::tie(o.max_output_height, o.max_output_width); }},
  };
  return table;
}
// clang-format on

LoaderOptions LoaderOptionsFromKeywords(py::dict keywords) {
  // The two go together, so they are read here rather than field by field.
  std::vector<AugmentOptions> specs;
  if (keywords.contains("augment")) Assign(keywords.attr("pop")("augment"), specs);
  const bool several_views =
      keywords.contains("several_views") && keywords.attr("pop")("several_views").cast<bool>();
  LoaderOptions options = OptionTableOf<LoaderOptions>::Get().FromDict(keywords);
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
