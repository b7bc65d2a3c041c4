// The Writer starts every chunk of a page or more on a 4 KiB boundary, so a reader with
// O_DIRECT (io/local_file.h) reads it where it lies.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/writer.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

const ImageShape kShape{40, 37, 3};  // 4,440 bytes: chunks of 4 images span several pages

// (address, stored bytes) of every chunk of /images, as HDF5 lays them out.
std::vector<std::pair<haddr_t, hsize_t>> ChunkPlaces(const std::string& path) {
  auto lock = hdf5::Lock();
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(file);
  hdf5::Dataset images(H5Dopen2(file.get(), "images", H5P_DEFAULT));
  REQUIRE(images);
  hdf5::Dataspace space(H5Dget_space(images.get()));
  hsize_t chunks = 0;
  REQUIRE(H5Dget_num_chunks(images.get(), space.get(), &chunks) >= 0);
  std::vector<std::pair<haddr_t, hsize_t>> places;
  for (hsize_t c = 0; c < chunks; ++c) {
    hsize_t offset[4] = {};
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_info(images.get(), space.get(), c, offset, &mask, &address, &size) >= 0);
    places.emplace_back(address, size);
  }
  return places;
}

TEST_CASE("every chunk of a page or more starts on a 4 KiB boundary") {
  for (const char* compression : {"none", "zstd:3"}) {
    CAPTURE(std::string(compression));
    testing::TempFolder folder;
    const std::string path = folder / "aligned.h5";
    WriterOptions options;
    options.image_shape = kShape;
    options.chunk_images = 4;
    options.compression = Compression::Parse(compression);
    Writer writer = Writer::Create(path, options);
    uint64_t noise = 0x9E3779B97F4A7C15ULL;  // xorshift: bytes zstd cannot shrink
    std::vector<uint8_t> pixels(static_cast<size_t>(4 * kShape.bytes()));
    DatasetDescription description;
    for (int64_t chunk = 0; chunk < 10; ++chunk) {
      for (uint8_t& pixel : pixels) {
        noise ^= noise << 13;
        noise ^= noise >> 7;
        noise ^= noise << 17;
        pixel = static_cast<uint8_t>(noise);
      }
      writer.Append(writer.Encode(pixels, 4));
      for (int i = 0; i < 4; ++i) {
        description.labels.push_back(i);
        description.sources.push_back("img" + std::to_string(chunk * 4 + i) + ".png");
      }
    }
    description.classes = {"a", "b", "c", "d"};
    writer.Finish(description);
    const auto places = ChunkPlaces(path);
    REQUIRE(places.size() == 10);
    int checked = 0;
    for (const auto& [address, size] : places) {
      CAPTURE(address);
      if (size < 4096) continue;  // below HDF5's alignment threshold: left where it falls
      CHECK(address % 4096 == 0);
      ++checked;
    }
    CHECK(checked == 10);
  }
}

}  // namespace
}  // namespace h5feed
