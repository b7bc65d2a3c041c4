// DescribeLabelOrder (inspect/label_order.h), and LabelOrder::Describe (h5feed/file_summary.h).

#include "summary/label_order.h"

#include <unordered_map>

namespace h5feed {

std::string LabelOrder::Describe() const { return order == "mixed" ? order : order + " by label"; }

}  // namespace h5feed

namespace h5feed::summary {

std::optional<LabelOrder> DescribeLabelOrder(std::span<const int64_t> labels) {
  std::unordered_map<int64_t, int64_t> counts;
  LabelOrder result;
  bool ascending = true;
  for (size_t i = 0; i < labels.size(); ++i) {
    ++counts[labels[i]];
    if (i == 0 || labels[i] != labels[i - 1]) ++result.runs;
    if (i > 0 && labels[i] < labels[i - 1]) ascending = false;
  }
  if (counts.size() < 2) return std::nullopt;
  result.classes = static_cast<int64_t>(counts.size());
  const auto rows = static_cast<double>(labels.size());
  double same = 0;  // sum n (n - 1): ordered pairs of rows with one label
  for (const auto& [label, n] : counts) {
    same += static_cast<double>(n) * static_cast<double>(n - 1);
  }
  result.random_runs = rows - same / rows;
  if (result.runs == result.classes) {
    result.order = ascending ? "sorted" : "grouped";
  } else if (4 * static_cast<double>(result.runs) < result.random_runs) {
    result.order = "clustered";
  } else {
    result.order = "mixed";
  }
  return result;
}

}  // namespace h5feed::summary
