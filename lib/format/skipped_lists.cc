#include "format/skipped_lists.h"

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "make_error.h"

namespace h5feed::format {

std::vector<SkippedSource> ReadSkippedLists(hid_t file, const std::string& path) {
  const bool has_sources = hdf5::LinkExists(file, schema::kSkippedSources);
  const bool has_reasons = hdf5::LinkExists(file, schema::kSkippedReasons);
  if (!has_sources && !has_reasons) return {};
  if (has_sources != has_reasons) {
    throw MakeError(ErrorCode::kCorrupt, "{} has /{} without /{}: its skipped lists are damaged",
                    path, has_sources ? schema::kSkippedSources : schema::kSkippedReasons,
                    has_sources ? schema::kSkippedReasons : schema::kSkippedSources);
  }
  std::vector<std::string> sources = hdf5::ReadStringDataset(file, schema::kSkippedSources);
  std::vector<std::string> reasons = hdf5::ReadStringDataset(file, schema::kSkippedReasons);
  if (sources.size() != reasons.size()) {
    throw MakeError(ErrorCode::kCorrupt, "{} has {} /{} for {} /{}: its skipped lists are damaged",
                    path, sources.size(), schema::kSkippedSources, reasons.size(),
                    schema::kSkippedReasons);
  }
  std::vector<SkippedSource> skipped;
  skipped.reserve(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    skipped.push_back({std::move(sources[i]), std::move(reasons[i])});
  }
  return skipped;
}

std::vector<SkippedSource> ReadSkippedLists(const Location& location, FileLocking locking) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::File file = std::move(hdf5::OpenHdf5File(location, locking).file);
  return ReadSkippedLists(file.get(), location.display());
}

}  // namespace h5feed::format
