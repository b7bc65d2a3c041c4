#include "index/image_storage.h"

#include <algorithm>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/type_names.h"
#include "hdf5/zstd_filter.h"

namespace h5feed::index {
namespace {

// H5Pget_filter2 reports at most this many client values here; the filters h5feed undoes
// itself use one (level or element size).
constexpr size_t kMaxClientValues = 16;

FilterKind KindOf(H5Z_filter_t id) {
  switch (id) {
    case H5Z_FILTER_DEFLATE: return FilterKind::kDeflate;
    case H5Z_FILTER_SHUFFLE: return FilterKind::kShuffle;
    case H5Z_FILTER_FLETCHER32: return FilterKind::kFletcher32;
    case hdf5::kZstdFilterId: return FilterKind::kZstd;
    default: return FilterKind::kOther;
  }
}

}  // namespace

ImageStorage ReadImageStorage(hid_t dataset, const hdf5::ImageDataset& images,
                              const std::string& path) {
  ImageStorage info;
  info.name = images.dataset.name;
  info.dims = images.dataset.dims;
  info.samples = images.count;
  info.shape = images.shape;
  // NHW is NHWC with C = 1, byte for byte.
  info.layout = images.layout == StoredLayout::kNCHW ? Layout::kNCHW : Layout::kNHWC;
  const std::string& name = info.name;
  const size_t rank = info.dims.size();

  hdf5::PropertyList dcpl(H5Dget_create_plist(dataset));
  if (!dcpl) throw hdf5::StackError(ErrorCode::kCorrupt, "reading the storage of " + name, path);
  info.storage = H5Pget_layout(dcpl.get());
  if (info.storage == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(rank);
    if (H5Pget_chunk(dcpl.get(), static_cast<int>(rank), chunk.data()) != static_cast<int>(rank)) {
      throw hdf5::StackError(ErrorCode::kCorrupt, "reading the chunk shape of " + name, path);
    }
    info.chunk.assign(chunk.begin(), chunk.end());
    info.chunks_hold_samples = true;
    for (size_t d = 1; d < rank; ++d) {
      info.chunks_hold_samples = info.chunks_hold_samples && info.chunk[d] == info.dims[d];
    }
  }
  const int count = H5Pget_nfilters(dcpl.get());
  if (count < 0)
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading the filters of " + name, path);
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    unsigned values[kMaxClientValues] = {};
    size_t value_count = kMaxClientValues;
    H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &value_count,
                                     values, 0, nullptr, &config);
    if (id < 0) {
      throw hdf5::StackError(ErrorCode::kCorrupt, "reading the filters of " + name, path);
    }
    FilterStep step;
    step.kind = KindOf(id);
    step.id = static_cast<int>(id);
    step.client_data.assign(values, values + std::min(value_count, kMaxClientValues));
    info.filters.push_back(std::move(step));
  }
  H5D_fill_value_t defined = H5D_FILL_VALUE_UNDEFINED;
  if (H5Pfill_value_defined(dcpl.get(), &defined) >= 0 && defined != H5D_FILL_VALUE_UNDEFINED) {
    uint8_t value = 0;
    if (H5Pget_fill_value(dcpl.get(), H5T_NATIVE_UINT8, &value) >= 0) info.fill_value = value;
  }
  info.external_files = std::max(0, H5Pget_external_count(dcpl.get()));
  return info;
}

std::vector<int> FiltersHdf5Lacks(const std::vector<FilterStep>& filters) {
  hdf5::RegisterZstdFilter();
  std::vector<int> missing;
  for (const FilterStep& step : filters) {
    if (H5Zfilter_avail(step.id) <= 0) missing.push_back(step.id);
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
