// SummarizeClasses (class_summary.h).

#include "summary/class_summary.h"

#include <algorithm>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/strings.h"
#include "io/resource_limits.h"
#include "summary/label_order.h"

namespace h5feed::summary {
namespace {

// Without class names, the classes are "0".."max label": a table of at most this many rows
// (labels above it are counted as outside the classes: they are ids, not classes).
constexpr int64_t kMaxUnnamedClasses = int64_t{1} << 20;

}  // namespace

void SummarizeClasses(hid_t file, FileSummary& s) {
  std::vector<std::string> names;
  const DatasetSummary* classes = FindDataset(s, format::schema::kClasses);
  if (classes != nullptr && classes->is_string && classes->shape.size() == 1) {
    io::limits::CheckClassCount(classes->shape[0], "dataset " + classes->name + " in " + s.path);
    names = hdf5::ReadStringDataset(file, classes->name.c_str());
  }
  const DatasetSummary* labels = FindDataset(s, format::schema::kLabels);
  std::vector<int64_t> counts;
  bool column = labels != nullptr &&
                (labels->shape.size() == 1 || (labels->shape.size() == 2 && labels->shape[1] == 1));
  if (labels != nullptr && labels->is_integer && column) {
    s.labels = labels->name;
    if (s.has_images && labels->shape[0] != s.num_images) {
      s.notes.push_back("labels holds " + std::to_string(labels->shape[0]) + " labels for " +
                        std::to_string(s.num_images) + " images");
    }
    io::limits::CheckRowCount(labels->shape[0], "dataset " + labels->name + " in " + s.path);
    int64_t out_of_range = 0;
    std::vector<int64_t> values;
    try {
      values = hdf5::ReadIntegerDataset(file, labels->name, s.path);
    } catch (const Error& e) {
      // Values that cannot be labels (2^63 or more): the rest of the file is still described.
      if (e.code() != ErrorCode::kCorrupt) throw;
      s.notes.push_back(std::string(e.what()) + "; its labels are not counted");
    }
    s.label_order = DescribeLabelOrder(values);
    if (s.label_order && s.label_order->InRuns()) {
      s.notes.push_back("the rows are stored " + s.label_order->Describe() +
                        ": batches of chunks:W and quasi:W hold few classes unless W is large "
                        "(the loader warns when so); h5feed rechunk " +
                        s.path + " OUT.h5 --seed 0 writes a shuffled copy");
    }
    for (int64_t label : values) {
      bool known = label >= 0 && (names.empty() || label < static_cast<int64_t>(names.size()));
      if (!known || label >= kMaxUnnamedClasses) {
        ++out_of_range;
        continue;
      }
      if (label >= static_cast<int64_t>(counts.size())) {
        counts.resize(static_cast<size_t>(label) + 1);
      }
      ++counts[static_cast<size_t>(label)];
    }
    if (out_of_range > 0) {
      s.notes.push_back(std::to_string(out_of_range) + " labels are outside the " +
                        std::to_string(names.empty() ? counts.size() : names.size()) + " classes");
    }
  } else if (labels != nullptr) {
    s.notes.push_back("dataset labels " + hdf5::ShapeText(labels->shape) + " " + labels->dtype +
                      " is not an integer dataset of shape (N,): ignored");
  }
  size_t count = std::max(names.size(), counts.size());
  for (size_t i = 0; i < count; ++i) {
    s.classes.push_back(
        {i < names.size() ? names[i] : std::to_string(i), i < counts.size() ? counts[i] : 0});
  }
}

}  // namespace h5feed::summary
