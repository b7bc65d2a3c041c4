#pragma once
// What OpenDatasetIndex learns about the image dataset hdf5::ChooseImageDataset chose
// (hdf5/image_dataset.h): its geometry and layout from the choice, and from the dataset's
// creation properties how it is stored: contiguous, chunked or other, the chunk shape, the
// filter pipeline with its client values, the fill value. Reads only the object header: never
// the chunk index (walking it is quadratic in HDF5 1.10.8) and never the pixels. Call under
// hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/image_shape.h"
#include "hdf5/image_dataset.h"
#include "index/dataset_index.h"

namespace h5feed::index {

struct ImageStorage {
  std::string name;           // "/images"
  std::vector<int64_t> dims;  // (N, H, W, C), (N, C, H, W) or (N, H, W)
  int64_t samples = 0;
  ImageShape shape;               // H x W x C of one sample
  Layout layout = Layout::kNHWC;  // (N, H, W) is NHWC with C = 1, byte for byte
  H5D_layout_t storage = H5D_CONTIGUOUS;
  std::vector<int64_t> chunk;        // chunked only: the chunk shape
  bool chunks_hold_samples = false;  // chunked, and chunk dims 1.. equal the dataset's
  std::vector<FilterStep> filters;   // in pipeline order
  uint8_t fill_value = 0;
  int external_files = 0;  // contiguous data kept in other files (H5Pset_external)
};

// Reads how `dataset`, the open image dataset `images`, is stored in the file `path`. Throws
// Error(kCorrupt) when HDF5 cannot read its creation properties.
ImageStorage ReadImageStorage(hid_t dataset, const hdf5::ImageDataset& images,
                              const std::string& path);

// The ids of the filters of `filters` that this process's HDF5 cannot run (H5Zfilter_avail,
// which also looks on HDF5_PLUGIN_PATH). Empty when HDF5 can decode the dataset itself.
std::vector<int> FiltersHdf5Lacks(const std::vector<FilterStep>& filters);

// "zstd:3+shuffle" style text of a pipeline, "none" when empty (for messages), with the
// filter names of hdf5/type_names.h.
std::string PipelineText(const std::vector<FilterStep>& filters);

}  // namespace h5feed::index
