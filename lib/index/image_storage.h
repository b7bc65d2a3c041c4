#pragma once
// What OpenDatasetIndex learns about the image dataset hdf5::ChooseImageDataset chose
// (hdf5/image_dataset.h): its geometry and layout from the choice, and how it is stored
// (hdf5/dataset_storage.h, read once with the dataset's description): contiguous, chunked or
// other, the chunk shape, the filter pipeline as the chunk reader undoes it, the fill value.
// Reads nothing from the file.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/image_shape.h"
#include "hdf5/dataset_storage.h"
#include "hdf5/image_dataset.h"
#include "index/dataset_index.h"

namespace h5feed::index {

struct ImageStorage {
  std::string name;           // "/images"
  std::vector<int64_t> dims;  // (N, H, W, C), (N, C, H, W) or (N, H, W)
  int64_t samples = 0;
  ImageShape shape;               // H x W x C of one sample
  Layout layout = Layout::kNHWC;  // (N, H, W) is NHWC with C = 1, byte for byte
  hdf5::StorageKind storage = hdf5::StorageKind::kOther;
  std::vector<int64_t> chunk;        // chunked only: the chunk shape
  bool chunks_hold_samples = false;  // chunked, and chunk dims 1.. equal the dataset's
  std::vector<FilterStep> filters;   // in pipeline order
  uint8_t fill_value = 0;
  int external_files = 0;           // contiguous data kept in other files (H5Pset_external)
  std::optional<uint64_t> address;  // contiguous data in the file, once written: where it starts
};

// How `images` is stored. Throws the Error(kCorrupt) of what HDF5 could not read of its
// storage (its creation properties, chunk shape or filters), naming the dataset and the file.
ImageStorage ReadImageStorage(const hdf5::ImageDataset& images);

// The filter pipeline of `stored`, as the chunk reader undoes it.
std::vector<FilterStep> FilterSteps(const hdf5::DatasetStorage& stored);

// The ids of the filters of `filters` that this process's HDF5 cannot run (which also looks on
// HDF5_PLUGIN_PATH). Empty when HDF5 can decode the dataset itself.
std::vector<int> FiltersHdf5Lacks(const std::vector<FilterStep>& filters);

// "zstd:3+shuffle" style text of a pipeline, "none" when empty (for messages), with the
// filter names of hdf5/type_names.h.
std::string PipelineText(const std::vector<FilterStep>& filters);

}  // namespace h5feed::index
