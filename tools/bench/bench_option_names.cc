#include "bench/bench_option_names.h"

#include <utility>

namespace h5feed::bench {
namespace {

// Each field path with the flag that sets it (bench_command.cc, remote_options_flags.cc) or
// the --augment item (augment_spec.h). A path not listed takes the entry of the field holding
// it ("sampler.window" is --sampler's).
constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
    {"images_dataset", "--images"},
    {"batch_size", "--batch"},
    {"sampler", "--sampler"},
    {"seed", "--seed"},
    {"shard.rank", "--rank"},
    {"shard.world_size", "--world-size"},
    {"cache_bytes", "--cache-mb"},
    {"slots", "--slots"},
    {"threads", "--threads"},
    {"normalize", "--normalize"},
    {"verify_checksums", "--no-verify"},
    {"map_file", "--no-map"},
    {"direct", "--direct"},
    {"jpeg_region_decode", "--full-jpeg-decode"},
    {"file_locking", "--file-locking"},
    {"open_probe", "--no-open-probe"},
    {"fields", "--fields"},
    {"held_field_bytes", "--stream-fields"},
    {"output.augment", "--augment"},
    {"output.augment.random_resized_crop", "--augment rrc"},
    {"output.augment.random_resized_crop.scale", "--augment scale"},
    {"output.augment.random_resized_crop.ratio", "--augment ratio"},
    {"output.augment.resize_shorter", "--augment resize"},
    {"output.augment.center_crop", "--augment center"},
    {"output.augment.random_crop_padding", "--augment pad"},
    {"remote.connections", "--connections"},
    {"remote.retries", "--retries"},
    {"remote.stall_seconds", "--request-stall-seconds"},
    {"remote.spill_dir", "--spill-dir"},
    {"remote.spill_bytes", "--spill-mb"},
    {"remote.s3_region", "--s3-region"},
    {"remote.s3_endpoint", "--s3-endpoint"},
};

}  // namespace

std::string BenchFlagOf(std::string_view path) {
  for (std::string_view prefix = path;;) {
    for (const auto& [field, flag] : kFlags) {
      if (field == prefix) return std::string(flag);
    }
    const size_t dot = prefix.rfind('.');
    if (dot == std::string_view::npos) return "";
    prefix = prefix.substr(0, dot);
  }
}

OptionNames BenchOptionNames() { return BenchFlagOf; }

}  // namespace h5feed::bench
