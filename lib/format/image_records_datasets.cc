// WriteImageRecords (image_records_datasets.h).

#include "format/image_records_datasets.h"

#include <vector>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/untimed_creation.h"

namespace h5feed::format {
namespace {

// One contiguous dataset of `rows` x `columns` values of `file_type`, from `memory_type` data.
void WriteDataset(hid_t root, const char* name, hid_t file_type, hid_t memory_type, size_t rows,
                  size_t columns, const void* data, const std::string& path) {
  const std::string what = "writing dataset /" + std::string(name);
  const hsize_t dims[2] = {rows, columns};
  hdf5::Dataspace space(H5Screate_simple(columns > 1 ? 2 : 1, dims, nullptr));
  if (!space) throw hdf5::StackError(ErrorCode::kIo, what, path);
  const hdf5::PropertyList untimed = hdf5::UntimedDatasetCreation();
  hdf5::Dataset dataset(
      H5Dcreate2(root, name, file_type, space.get(), H5P_DEFAULT, untimed.get(), H5P_DEFAULT));
  if (!dataset ||
      (rows > 0 && H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)) {
    throw hdf5::StackError(ErrorCode::kIo, what, path);
  }
}

}  // namespace

void WriteImageRecords(hid_t root, std::span<const StoredImage> images,
                       std::span<const uint64_t> offsets, const std::string& path) {
  const size_t n = images.size();
  std::vector<int32_t> shapes;
  std::vector<uint64_t> bytes;
  std::vector<uint8_t> encodings;
  shapes.reserve(3 * n);
  bytes.reserve(n);
  encodings.reserve(n);
  for (const StoredImage& image : images) {
    shapes.insert(shapes.end(), {image.height, image.width, image.channels});
    bytes.push_back(image.bytes);
    encodings.push_back(static_cast<uint8_t>(image.encoding));
  }
  WriteDataset(root, schema::kImageShapes, H5T_STD_I32LE, H5T_NATIVE_INT32, n, 3, shapes.data(),
               path);
  WriteDataset(root, schema::kImageOffsets, H5T_STD_U64LE, H5T_NATIVE_UINT64, n, 1, offsets.data(),
               path);
  WriteDataset(root, schema::kImageBytes, H5T_STD_U64LE, H5T_NATIVE_UINT64, n, 1, bytes.data(),
               path);
  WriteDataset(root, schema::kImageEncodings, H5T_STD_U8LE, H5T_NATIVE_UINT8, n, 1,
               encodings.data(), path);
}

}  // namespace h5feed::format
