// WriteImageRecords (image_records_datasets.h).

#include "format/image_records_datasets.h"

#include <vector>

#include "format/schema.h"
#include "hdf5/integer_dataset.h"

namespace h5feed::format {

void WriteImageRecords(hid_t root, std::span<const StoredImage> images,
                       std::span<const uint64_t> offsets) {
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
  hdf5::WriteIntegerDataset<int32_t>(root, schema::kImageShapes, shapes, 3);
  hdf5::WriteIntegerDataset<uint64_t>(root, schema::kImageOffsets, offsets);
  hdf5::WriteIntegerDataset<uint64_t>(root, schema::kImageBytes, bytes);
  hdf5::WriteIntegerDataset<uint8_t>(root, schema::kImageEncodings, encodings);
}

}  // namespace h5feed::format
