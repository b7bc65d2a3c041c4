#include "index/image_storage.h"

#include "hdf5/type_names.h"
#include "hdf5/zstd_filter.h"

namespace h5feed::index {
namespace {

FilterKind KindOf(int id) {
  switch (id) {
    case hdf5::kDeflateFilterId: return FilterKind::kDeflate;
    case hdf5::kShuffleFilterId: return FilterKind::kShuffle;
    case hdf5::kFletcher32FilterId: return FilterKind::kFletcher32;
    case hdf5::kZstdFilterId: return FilterKind::kZstd;
    default: return FilterKind::kOther;
  }
}

}  // namespace

std::vector<FilterStep> FilterSteps(const hdf5::DatasetStorage& stored) {
  std::vector<FilterStep> steps;
  for (const hdf5::Filter& filter : stored.filters) {
    steps.push_back(FilterStep{KindOf(filter.id), filter.id, filter.values});
  }
  return steps;
}

ImageStorage ReadImageStorage(const hdf5::ImageDataset& images) {
  const hdf5::DatasetStorage& stored = images.dataset.storage;
  if (stored.problem) throw *stored.problem;
  ImageStorage info;
  info.name = images.dataset.name;
  info.dims = images.dataset.dims;
  info.samples = images.count;
  info.shape = images.shape;
  // NHW is NHWC with C = 1, byte for byte.
  info.layout = images.layout == StoredLayout::kNCHW ? Layout::kNCHW : Layout::kNHWC;
  info.storage = stored.kind;
  if (info.storage == hdf5::StorageKind::kChunked) {
    info.chunk = stored.chunk;
    info.chunks_hold_samples = true;
    for (size_t d = 1; d < info.dims.size(); ++d) {
      info.chunks_hold_samples = info.chunks_hold_samples && info.chunk[d] == info.dims[d];
    }
  }
  info.filters = FilterSteps(stored);
  info.fill_value = stored.fill_value;
  info.external_files = stored.external_files;
  info.address = stored.address;
  return info;
}

std::vector<int> FiltersHdf5Lacks(const std::vector<FilterStep>& filters) {
  std::vector<int> missing;
  for (const FilterStep& step : filters) {
    if (!hdf5::FilterAvailable(step.id)) missing.push_back(step.id);
  }
  return missing;
}

std::string PipelineText(const std::vector<FilterStep>& filters) {
  if (filters.empty()) return "none";
  std::string text;
  for (const FilterStep& step : filters) {
    if (!text.empty()) text += "+";
    text += hdf5::FilterName(step.id, step.client_data);
  }
  return text;
}

}  // namespace h5feed::index
