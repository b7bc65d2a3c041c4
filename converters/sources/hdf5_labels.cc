#include "sources/hdf5_labels.h"

#include <algorithm>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/strings.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// More classes than this means the labels are ids, not class indices.
constexpr int64_t kMaxClasses = int64_t{1} << 20;

std::vector<int64_t> ReadLabels(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                                const std::string& requested, int64_t count,
                                const std::string& path) {
  const hdf5::DatasetEntry* labels =
      hdf5::FindDataset(datasets, requested.empty() ? format::schema::kLabels : requested);
  if (labels == nullptr) {
    if (requested.empty()) return {};
    throw MakeError(ErrorCode::kNotFound, "no dataset {} in {}; its datasets: {}", requested, path,
                    hdf5::ListText(datasets));
  }
  const std::vector<int64_t>& s = labels->dims;
  if (!labels->is_integer || !(s.size() == 1 || (s.size() == 2 && s[1] == 1))) {
    throw MakeError(ErrorCode::kUnsupported,
                    "dataset {} in {} is {} {}; labels must be integers of shape (N,) or (N, 1){}",
                    labels->name, path, labels->dtype, hdf5::ShapeText(s),
                    (requested.empty() ? ": name another dataset as the labels" : ""));
  }
  if (s[0] != count) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "dataset {} in {} holds {} labels for {} images; there must be one label per image",
        labels->name, path, s[0], count);
  }
  const std::vector<int64_t> values = hdf5::ReadIntegerDataset(file, labels->name, path);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= kMaxClasses) {
      throw MakeError(ErrorCode::kCorrupt,
                      "label {} of {} in {} is {}; labels are class indices in [0, {})", i,
                      labels->name, path, values[i], kMaxClasses);
    }
  }
  return values;
}

}  // namespace

Hdf5Labels ReadHdf5Labels(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                          const std::string& requested, int64_t count, const std::string& path) {
  Hdf5Labels result;
  result.labels = ReadLabels(file, datasets, requested, count, path);
  int64_t max_label = 0;
  for (int64_t label : result.labels) max_label = std::max(max_label, label);
  const hdf5::DatasetEntry* classes = hdf5::FindDataset(datasets, format::schema::kClasses);
  // An empty /classes (h5feed.write of labels without names) names no class, as none does.
  if (classes != nullptr && classes->is_string && classes->dims.size() == 1 &&
      classes->dims[0] > 0) {
    result.classes = hdf5::ReadStringDataset(file, classes->name.c_str());
    if (max_label >= static_cast<int64_t>(result.classes.size())) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{} has labels up to {} but its classes dataset names only {} classes", path,
                      max_label, result.classes.size());
    }
  } else {
    for (int64_t c = 0; c <= max_label; ++c) result.classes.push_back(std::to_string(c));
  }
  return result;
}

}  // namespace h5feed::converters
