// Running bench/reference_loaders.py for the sweep (reference_loaders.h).

#include "reference_loaders.h"

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "h5feed/error.h"
#include "make_error.h"
#include "subprocess.h"

#ifndef H5FEED_SOURCE_REFERENCE_LOADERS
#define H5FEED_SOURCE_REFERENCE_LOADERS ""
#endif
#ifndef H5FEED_INSTALLED_REFERENCE_LOADERS
#define H5FEED_INSTALLED_REFERENCE_LOADERS "../share/h5feed/bench/reference_loaders.py"
#endif

namespace h5feed::bench {

const std::vector<std::string>& ReferenceLoaderNames() {
  static const std::vector<std::string> names = {"random", "random_rdcc", "chunked"};
  return names;
}

std::string LocateReferenceLoaders(const std::string& override_path,
                                   const std::string& executable) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  if (!override_path.empty()) {
    if (fs::is_regular_file(override_path, ignored)) return override_path;
    throw MakeError(ErrorCode::kNotFound,
                    "--reference-loaders {}: no such file (it is bench/reference_loaders.py)",
                    override_path);
  }
  const fs::path installed =
      fs::path(executable).parent_path() / H5FEED_INSTALLED_REFERENCE_LOADERS;
  if (fs::is_regular_file(installed, ignored)) return installed.lexically_normal().string();
  const std::string source = H5FEED_SOURCE_REFERENCE_LOADERS;
  if (!source.empty() && fs::is_regular_file(source, ignored)) return source;
  throw MakeError(
      ErrorCode::kNotFound,
      "--compare-h5py needs bench/reference_loaders.py, which is neither installed at {} nor in "
      "the source tree at {}; pass --reference-loaders PATH to a copy of it (with bench_support.py "
      "beside it)",
      installed.lexically_normal().string(),
      (source.empty() ? std::string("(not configured)") : source));
}

SweepRow RunReferenceLoader(const ReferenceSettings& settings, const std::string& loader,
                            const Location& file, int64_t chunk_samples,
                            const std::string& compression) {
  SweepRow row;
  row.kind = "reference";
  row.sampler = "h5py " + loader;
  row.chunk_samples = chunk_samples;
  row.compression = compression;
  row.batch = settings.batch;
  row.threads = settings.workers;
  std::vector<std::string> argv = {settings.python, settings.script,
                                   "--loader",      loader,
                                   "--file",        file.text(),
                                   "--batch",       std::to_string(settings.batch),
                                   "--workers",     std::to_string(settings.workers),
                                   "--json"};
  if (settings.max_seconds > 0) {
    argv.insert(argv.end(), {"--max-seconds", std::to_string(settings.max_seconds)});
  }
  if (!settings.plugin_dir.empty()) argv.insert(argv.end(), {"--plugin-dir", settings.plugin_dir});
  if (!settings.images.empty()) argv.insert(argv.end(), {"--images", settings.images});
  // h5py reads a URL through HDF5's read-only S3 driver (http(s) only: it has no s3:// form).
  if (file.remote()) argv.insert(argv.end(), {"--driver", "ros3"});
  try {
    const ProcessResult result = RunProcess(argv);
    if (result.exit_code != 0) {
      row.status = "failed";
      row.error = "reference_loaders.py exit " + std::to_string(result.exit_code) + ": " +
                  LastLine(result.err);
      return row;
    }
    const auto j = nlohmann::json::parse(LastLine(result.out));
    row.images = j.at("images").get<int64_t>();
    row.seconds = j.at("seconds").get<double>();
    row.images_per_s = j.at("images_per_s").get<double>();
    row.mb_per_s = j.at("mb_per_s").get<double>();
    row.peak_rss_mb = j.at("peak_rss_mb").get<double>();
    row.status = j.at("complete").get<bool>() ? "ok" : "time limit";
  } catch (const std::exception& e) {
    row.status = "failed";
    row.error = std::string("reference_loaders.py: ") + e.what();
  }
  return row;
}

}  // namespace h5feed::bench
