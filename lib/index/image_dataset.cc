#include "index/image_dataset.h"

#include <algorithm>

#include "codec/zstd_filter.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "inspect/file_summary.h"
#include "io/resource_limits.h"

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
    case codec::kZstdFilterId: return FilterKind::kZstd;
    default: return FilterKind::kOther;
  }
}

std::string Where(const std::string& name, const std::string& path) {
  return "dataset " + name + " in " + path;
}

}  // namespace

ImageDatasetInfo InspectImageDataset(hid_t file, hid_t dataset, const std::string& name,
                                     const std::string& path) {
  ImageDatasetInfo info;
  info.name = name;
  const std::string where = Where(name, path);
  hdf5::DatasetEntry entry = hdf5::DescribeEntry(dataset, name);
  info.dims = entry.dims;
  if (!entry.is_uint8) {
    throw Error(ErrorCode::kUnsupported,
                where + " holds " + entry.dtype + " " + hdf5::ShapeText(entry.dims) +
                    "; images must be uint8 (N, H, W, C), (N, C, H, W) or (N, H, W). Convert "
                    "them to uint8 first (numpy: a.astype(np.uint8))");
  }
  const size_t rank = info.dims.size();
  if (rank != 3 && rank != 4) {
    throw Error(ErrorCode::kUnsupported,
                where + " has shape " + hdf5::ShapeText(info.dims) +
                    "; images must have 4 dimensions (N, H, W, C) or (N, C, H, W), or 3 for "
                    "grayscale (N, H, W)");
  }
  limits::CheckImageDimensions(info.dims, where);
  info.samples = info.dims[0];
  if (rank == 3) {
    info.shape = ImageShape{info.dims[1], info.dims[2], 1};
  } else {
    std::string layout;
    try {
      layout = inspect::DetectLayout(info.dims, inspect::DeclaredLayout(file, name));
    } catch (const Error& e) {
      throw Error(e.code(), where + ": " + e.what());
    }
    info.layout = layout == "NCHW" ? Layout::kNCHW : Layout::kNHWC;
    info.shape = info.layout == Layout::kNCHW ? ImageShape{info.dims[2], info.dims[3], info.dims[1]}
                                              : ImageShape{info.dims[1], info.dims[2], info.dims[3]};
  }
  if (info.shape.bytes() <= 0) {
    throw Error(ErrorCode::kUnsupported, where + " has empty images: shape " +
                                             hdf5::ShapeText(info.dims));
  }

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
  if (count < 0) throw hdf5::StackError(ErrorCode::kCorrupt, "reading the filters of " + name, path);
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
  codec::RegisterZstdFilter();
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
    std::string level;  // built with += : GCC 12 warns falsely (-Wrestrict) on ":" + string
    if (!step.client_data.empty()) level.append(":").append(std::to_string(step.client_data[0]));
    switch (step.kind) {
      case FilterKind::kZstd: text += "zstd" + level; break;
      case FilterKind::kDeflate: text += "gzip" + level; break;
      case FilterKind::kShuffle: text += "shuffle"; break;
      case FilterKind::kFletcher32: text += "fletcher32"; break;
      case FilterKind::kOther:
        text += step.id == 32000 ? "lzf (filter 32000)" : "filter " + std::to_string(step.id);
        break;
    }
  }
  return text;
}

}  // namespace h5feed::index
