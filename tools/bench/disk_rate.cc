// MeasureDiskRate (disk_rate.h).

#include "disk_rate.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "io/random_access_file.h"
#include "page_cache.h"

namespace h5feed::bench {
namespace {

constexpr uint64_t kBlockBytes = uint64_t{16} << 20;  // dd bs=16M

}  // namespace

DiskRate MeasureDiskRate(const std::string& path, const DiskRateOptions& options) {
  DiskRate rate;
  rate.readers = std::max(1, options.readers);
  const auto file = io::OpenPosixFile(path);
  const uint64_t part = (file->size() + rate.readers - 1) / rate.readers;
  const uint64_t per_reader = std::min(part, options.max_bytes / rate.readers);
  // Each reader's block, allocated and touched before the clock starts: faulting in 4 x 16 MiB
  // of fresh pages took longer than reading a file of a few MiB, whose rate then read as a
  // tenth of the device's (and of the page cache's, where the drop did not take effect).
  std::vector<std::vector<uint8_t>> blocks(
      static_cast<size_t>(rate.readers),
      std::vector<uint8_t>(static_cast<size_t>(std::clamp<uint64_t>(per_reader, 1, kBlockBytes))));
  rate.cold = EvictFromPageCache(path).took_effect();
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> readers;
  for (int r = 0; r < rate.readers; ++r) {
    const uint64_t begin = static_cast<uint64_t>(r) * part;
    const uint64_t end = std::min(file->size(), begin + per_reader);
    readers.emplace_back([&, begin, end, &block = blocks[static_cast<size_t>(r)]] {
      try {
        for (uint64_t at = begin; at < end; at += block.size()) {
          const uint64_t n = std::min<uint64_t>(block.size(), end - at);
          file->ReadAt(at, std::span<uint8_t>(block.data(), n));
        }
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
    rate.bytes += end > begin ? end - begin : 0;
  }
  for (std::thread& reader : readers) reader.join();
  rate.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EvictFromPageCache(path);
  if (failure) std::rethrow_exception(failure);
  rate.mb_per_s = rate.seconds > 0 ? static_cast<double>(rate.bytes) / 1e6 / rate.seconds : 0;
  return rate;
}

}  // namespace h5feed::bench
