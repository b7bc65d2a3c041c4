// CreateExtendibleBytes and ExtendDataset (extendible_dataset.h).

#include "hdf5/extendible_dataset.h"

#include <string>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/untimed_creation.h"
#include "hdf5/zstd_filter.h"

namespace h5feed::hdf5 {

Dataset CreateExtendibleBytes(hid_t file, const char* name, std::span<const uint64_t> row_shape,
                              uint64_t chunk_rows, const Compression& compression) {
  const std::string what = "creating dataset /" + std::string(name);
  std::vector<hsize_t> dims = {0};
  std::vector<hsize_t> max_dims = {H5S_UNLIMITED};
  std::vector<hsize_t> chunk = {chunk_rows};
  for (uint64_t extent : row_shape) {
    dims.push_back(extent);
    max_dims.push_back(extent);
    chunk.push_back(extent);
  }
  const int rank = static_cast<int>(dims.size());
  const Dataspace space(H5Screate_simple(rank, dims.data(), max_dims.data()));
  const PropertyList create = UntimedDatasetCreation();
  if (!space || H5Pset_chunk(create.get(), rank, chunk.data()) < 0) {
    throw StackError(ErrorCode::kIo, what, file);
  }
  if (!SetCompressionFilter(create.get(), compression))
    throw StackError(ErrorCode::kIo, what, file);
  Dataset dataset(
      H5Dcreate2(file, name, H5T_STD_U8LE, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT));
  if (!dataset) throw StackError(ErrorCode::kIo, what, file);
  return dataset;
}

bool SetCompressionFilter(hid_t create, const Compression& compression) {
  if (compression.kind == Compression::Kind::kZstd) {
    RegisterZstdFilter();
    const unsigned int level[1] = {static_cast<unsigned int>(compression.level)};
    return H5Pset_filter(create, kZstdFilterId, H5Z_FLAG_OPTIONAL, 1, level) >= 0;
  }
  if (compression.kind == Compression::Kind::kDeflate) {
    return H5Pset_deflate(create, static_cast<unsigned int>(compression.level)) >= 0;
  }
  return true;
}

bool ExtendDataset(hid_t dataset, std::span<const uint64_t> dims) {
  const std::vector<hsize_t> extents(dims.begin(), dims.end());
  return H5Dset_extent(dataset, extents.data()) >= 0;
}

}  // namespace h5feed::hdf5
