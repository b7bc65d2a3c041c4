#include "loader/loader_file.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "h5feed/error.h"
#include "loader/options_check.h"
#include "loader/remote_options_warning.h"
#include "loader/warning.h"
#include "make_error.h"
#include "probe/open_probe.h"
#include "source/open_chunk_source.h"

namespace h5feed::loader {

namespace {

// options.remote, whose errors (the remote module's, the probe's) name its fields as the
// loader's front end spells them: `--spill-dir` from bench, `remote['spill_dir']` in Python.
RemoteOptions NamedRemoteOptions(const LoaderOptions& options) {
  RemoteOptions remote = options.remote;
  if (!remote.option_names) {
    remote.option_names = [names = options.option_names](std::string_view field) {
      return NameOption(names, "LoaderOptions", "remote." + std::string(field));
    };
  }
  return remote;
}

}  // namespace

index::DatasetIndex OpenLoaderIndex(const std::string& path, const LoaderOptions& options) {
  CheckOptions(options);
  const RemoteOptions remote = NamedRemoteOptions(options);
  if (options.open_probe) {
    probe::ProbeOpen(
        path,
        probe::ProbeRequest{probe::ProbeTarget::kLoader, options.images_dataset,
                            options.labels_dataset, options.file_locking,
                            std::chrono::seconds(options.open_probe_stall_seconds), remote},
        [&](const std::string& warning) { Warn(options, warning); });
  }
  index::IndexOptions index_options;
  index_options.images = options.images_dataset;
  index_options.labels = options.labels_dataset;
  index_options.file_locking = options.file_locking;
  index_options.remote = remote;
  index::DatasetIndex dataset = index::OpenDatasetIndex(path, index_options);
  for (const std::string& warning : dataset.warnings) Warn(options, warning);
  if (auto warning = UnusedRemoteOptionsWarning(path, options)) Warn(options, *warning);
  return dataset;
}

source::ChunkSourceOptions LoaderSourceOptions(const LoaderOptions& options) {
  return {
      .verify_checksums = options.verify_checksums,
      .rows_checked_by_caller = true,  // the gatherer checks each row as it copies it
      .map_file = options.map_file,
      .direct = options.direct,
      // Bytes read or fetched ahead take at most a quarter of the cache's budget more.
      .fetch_ahead_bytes = static_cast<uint64_t>(std::max<int64_t>(options.cache_bytes, 0) / 4)};
}

std::unique_ptr<source::ChunkSource> OpenLoaderSource(const index::DatasetIndex& dataset,
                                                      const LoaderOptions& options,
                                                      const ChunkFileOpener& open_chunk_file) {
  if (options.direct && dataset.location.remote()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} reads a local file with O_DIRECT, and {} is remote (its chunks come over "
                    "the network, not from a disk here): leave it off",
                    OptionName(options, "direct"), dataset.path);
  }
  const source::ChunkSourceOptions source_options = LoaderSourceOptions(options);
  if (open_chunk_file) {
    return source::ChunkSourceOver(dataset, open_chunk_file(dataset), source_options);
  }
  return source::OpenChunkSource(dataset, source_options);
}

DatasetInfo DescribeDataset(const std::string& path, const index::DatasetIndex& d) {
  DatasetInfo info{path,
                   d.samples,
                   d.shape,
                   d.chunk_samples,
                   d.chunk_count(),
                   d.stored_layout == StoredLayout::kFlat,
                   {},
                   d.classes};
  for (int64_t c = 0; c <= d.chunk_count(); ++c) {
    info.chunk_first_rows.push_back(d.first_row_of_chunk(c));
  }
  return info;
}

}  // namespace h5feed::loader
