#include "hdf5/zstd_filter.h"

#include <dlfcn.h>
#include <doctest/doctest.h>
#include <zstd.h>

#include <H5PLextern.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "codec/zstd_codec.h"
#include "hdf5/handle.h"
#include "support/one_shot_compress.h"
#include "support/temp_folder.h"

namespace h5feed::hdf5 {
namespace {

std::vector<uint8_t> Pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 7) % 251 + i / 4096);
  return bytes;
}

// Runs a filter function the way HDF5 does: on a malloc'd buffer it may replace. Returns the
// bytes it produced, or nullopt when it reported failure.
std::optional<std::vector<uint8_t>> RunFilter(H5Z_func_t filter, unsigned flags,
                                              std::vector<unsigned> cd_values,
                                              const std::vector<uint8_t>& input) {
  size_t size = std::max<size_t>(input.size(), 1);
  void* buffer = std::malloc(size);
  std::memcpy(buffer, input.data(), input.size());
  size_t result = filter(flags, cd_values.size(), cd_values.data(), input.size(), &size, &buffer);
  std::optional<std::vector<uint8_t>> output;
  if (result != 0) {
    CHECK(result <= size);
    const uint8_t* bytes = static_cast<const uint8_t*>(buffer);
    output.emplace(bytes, bytes + result);
  }
  std::free(buffer);
  return output;
}

std::vector<uint8_t> FrameWithoutContentSize(const std::vector<uint8_t>& input) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0);
  std::vector<uint8_t> frame(ZSTD_compressBound(input.size()));
  size_t size = ZSTD_compress2(context, frame.data(), frame.size(), input.data(), input.size());
  ZSTD_freeCCtx(context);
  REQUIRE(!ZSTD_isError(size));
  frame.resize(size);
  return frame;
}

TEST_CASE("a dataset written with plain H5Dwrite through the registered filter reads back") {
  RegisterZstdFilter();
  testing::TempFolder folder;
  const std::string path = folder / "filtered.h5";
  const hsize_t dims[4] = {10, 32, 32, 3};
  const hsize_t chunk[4] = {4, 32, 32, 3};
  const size_t chunk_bytes = 4 * 32 * 32 * 3;
  std::vector<uint8_t> pixels = Pattern(10 * 32 * 32 * 3);
  {
    hdf5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    hdf5::Dataspace space(H5Screate_simple(4, dims, nullptr));
    hdf5::PropertyList create(H5Pcreate(H5P_DATASET_CREATE));
    REQUIRE(H5Pset_chunk(create.get(), 4, chunk) >= 0);
    const unsigned level[1] = {5};
    REQUIRE(H5Pset_filter(create.get(), kZstdFilterId, H5Z_FLAG_OPTIONAL, 1, level) >= 0);
    hdf5::Dataset dataset(H5Dcreate2(file.get(), "images", H5T_STD_U8LE, space.get(), H5P_DEFAULT,
                                     create.get(), H5P_DEFAULT));
    REQUIRE(dataset.valid());
    REQUIRE(H5Dwrite(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     pixels.data()) >= 0);
  }
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hdf5::Dataset dataset(H5Dopen2(file.get(), "images", H5P_DEFAULT));
  std::vector<uint8_t> read(pixels.size());
  REQUIRE(H5Dread(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, read.data()) >=
          0);
  CHECK(read == pixels);

  // The stored chunk really is a zstd frame (an optional filter that was not registered would
  // have stored it raw, silently).
  const hsize_t offset[4] = {4, 0, 0, 0};
  hsize_t stored = 0;
  REQUIRE(H5Dget_chunk_storage_size(dataset.get(), offset, &stored) >= 0);
  CHECK(stored < chunk_bytes);
  std::vector<uint8_t> frame(stored);
  uint32_t filter_mask = 1;
  REQUIRE(H5Dread_chunk(dataset.get(), H5P_DEFAULT, offset, &filter_mask, frame.data()) >= 0);
  CHECK(filter_mask == 0);
  CHECK(codec::ZstdContentSize(frame) == std::optional<uint64_t>(chunk_bytes));
  std::vector<uint8_t> decompressed(chunk_bytes);
  codec::ZstdDecompress(frame, decompressed);
  CHECK(std::equal(decompressed.begin(), decompressed.end(), pixels.begin() + chunk_bytes));

  hdf5::PropertyList create(H5Dget_create_plist(dataset.get()));
  unsigned flags = 0;
  size_t cd_count = 4;
  unsigned cd_values[4] = {};
  unsigned config = 0;
  CHECK(H5Pget_filter_by_id2(create.get(), kZstdFilterId, &flags, &cd_count, cd_values, 0, nullptr,
                             &config) >= 0);
  CHECK(cd_count == 1);
  CHECK(cd_values[0] == 5);
}

TEST_CASE("registering from several threads at once registers the filter once, both ways") {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([] { RegisterZstdFilter(); });
  for (std::thread& thread : threads) thread.join();
  CHECK(H5Zfilter_avail(kZstdFilterId) > 0);
  unsigned config = 0;
  REQUIRE(H5Zget_filter_info(kZstdFilterId, &config) >= 0);
  CHECK((config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0);
  CHECK((config & H5Z_FILTER_CONFIG_DECODE_ENABLED) != 0);
}

TEST_CASE("the filter compresses at the level in cd_values[0], zstd's default 3 without one") {
  H5Z_func_t filter = ZstdFilterClass().filter;
  std::vector<uint8_t> input = Pattern(300000);
  auto at_default = RunFilter(filter, 0, {}, input);
  auto at_3 = RunFilter(filter, 0, {3}, input);
  auto at_1 = RunFilter(filter, 0, {1}, input);
  auto at_19 = RunFilter(filter, 0, {19}, input);
  REQUIRE(at_default);
  REQUIRE(at_1);
  REQUIRE(at_19);
  CHECK(*at_default == *at_3);
  CHECK(*at_3 == testing::ZstdCompress(input, 3));  // the same frame the Writer stores
  CHECK(at_19->size() < at_1->size());
  auto back = RunFilter(filter, H5Z_FLAG_REVERSE, {19}, *at_19);
  REQUIRE(back);
  CHECK(*back == input);
}

TEST_CASE("the filter decompresses frames without a recorded size, and concatenated frames") {
  H5Z_func_t filter = ZstdFilterClass().filter;
  // 1 MiB of mostly zeros compresses ~1000:1, so the streaming output buffer must grow.
  std::vector<uint8_t> input(1 << 20, 0);
  input[12345] = 7;
  std::vector<uint8_t> unsized = FrameWithoutContentSize(input);
  REQUIRE(!codec::ZstdContentSize(unsized).has_value());
  auto back = RunFilter(filter, H5Z_FLAG_REVERSE, {3}, unsized);
  REQUIRE(back);
  CHECK(*back == input);

  std::vector<uint8_t> first = Pattern(5000), second = Pattern(7000);
  std::vector<uint8_t> frames = testing::ZstdCompress(first, 3);
  std::vector<uint8_t> frame2 = testing::ZstdCompress(second, 3);
  frames.insert(frames.end(), frame2.begin(), frame2.end());
  auto joined = RunFilter(filter, H5Z_FLAG_REVERSE, {3}, frames);
  REQUIRE(joined);
  first.insert(first.end(), second.begin(), second.end());
  CHECK(*joined == first);
}

TEST_CASE("the filter reports failure, without throwing, for data that is not a whole frame") {
  H5Z_func_t filter = ZstdFilterClass().filter;
  std::vector<uint8_t> frame = testing::ZstdCompress(Pattern(100000), 3);
  std::vector<uint8_t> truncated(frame.begin(), frame.end() - 100);
  CHECK(!RunFilter(filter, H5Z_FLAG_REVERSE, {3}, truncated));
  std::vector<uint8_t> unsized_truncated = FrameWithoutContentSize(Pattern(100000));
  unsized_truncated.resize(unsized_truncated.size() - 100);
  CHECK(!RunFilter(filter, H5Z_FLAG_REVERSE, {3}, unsized_truncated));
  CHECK(!RunFilter(filter, H5Z_FLAG_REVERSE, {3}, std::vector<uint8_t>(64, 0x42)));
}

TEST_CASE("the plugin library hands HDF5 the same filter and exports nothing else of h5feed") {
  void* plugin = dlopen(H5FEED_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
  INFO("dlopen: " << (plugin ? "" : dlerror()));
  REQUIRE(plugin != nullptr);
  auto get_type = reinterpret_cast<H5PL_type_t (*)()>(dlsym(plugin, "H5PLget_plugin_type"));
  auto get_info = reinterpret_cast<const void* (*)()>(dlsym(plugin, "H5PLget_plugin_info"));
  REQUIRE(static_cast<bool>(get_type));
  REQUIRE(static_cast<bool>(get_info));
  CHECK(get_type() == H5PL_TYPE_FILTER);
  const auto* info = static_cast<const H5Z_class2_t*>(get_info());
  CHECK(info->version == H5Z_CLASS_T_VERS);
  CHECK(info->id == 32015);
  CHECK(info->encoder_present == 1);
  CHECK(info->decoder_present == 1);
  CHECK(dlsym(plugin, "_ZN6h5feed5codec15ZstdFilterClassEv") == nullptr);

  std::vector<uint8_t> input = Pattern(200000);
  auto frame = RunFilter(info->filter, 0, {4}, input);
  REQUIRE(frame);
  CHECK(*frame == testing::ZstdCompress(input, 4));
  auto back = RunFilter(info->filter, H5Z_FLAG_REVERSE, {4}, *frame);
  REQUIRE(back);
  CHECK(*back == input);
  dlclose(plugin);
}

}  // namespace
}  // namespace h5feed::hdf5
