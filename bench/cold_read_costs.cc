// cold_read_costs FILE.h5 [--mb N] [--rounds R] [--ahead-mb D] [--threads K]
//
// How fast each way of reading ahead gets a file's chunks off the disk, the page cache dropped
// before every measurement: the candidates of docs/reader.md ("Reading from the disk") side by
// side with `dd`, so the reader's mechanism is chosen by measurement. Pure I/O: nothing is
// decompressed or checked, so each line is the most that way of reading can deliver.
//
// The chunks (the first N MB of stored bytes of the chunk table) are read in a seeded random
// order, each chunk once, as chunks:W reads a file (windows of chunks in random order). Lines:
//   dd x1            one reader, 16 MiB preads in file order over the same bytes (`dd bs=16M`)
//   dd x4            four readers, each over a quarter of them: the device with requests in
//                    flight, the ceiling every other line is a fraction of (same round)
//   pread x1, x2     one pread per chunk on 1 or 2 threads: the reader without read-ahead
//   willneed + pread posix_fadvise(WILLNEED) over the chunks ahead, at most D MiB advised and
//                    not yet read, and one thread preading each chunk in order
//   willneed + map   the same, each chunk then mapped with MADV_POPULATE_READ (the reader's
//                    mapped path)
//   threads + pread  K threads preading chunks ahead into buffers (at most D MiB), taken in
//                    order by the consumer
//   direct threads   the same with O_DIRECT (each read an aligned enclosing range)
//   uring            io_uring, one thread, reads ahead into buffers (at most D MiB), buffered
//   uring direct     the same with O_DIRECT
//
// Prints MB/s of stored bytes (MB = 10^6 bytes), median over R rounds, and the median of each
// round's ratio to `dd x4` in that round. Rounds alternate the order of the lines, so drift of
// a shared, noisy virtual disk lands on all of them. The file must be on a file system whose
// page cache posix_fadvise(DONTNEED) empties (not tmpfs); each line checks it did.

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "whole_number_arg.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kAlign = 4096;
constexpr uint64_t kMiB = uint64_t{1} << 20;

struct Options {
  std::string path;
  int64_t mb = 1024;
  int rounds = 3;
  int64_t ahead_mb = 64;
  int threads = 8;
  bool file_order = false;  // --file-order: the chunks in file order, not shuffled
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "cold_read_costs: %s\nusage: cold_read_costs FILE.h5 [--mb N] [--rounds R] "
               "[--ahead-mb D] [--threads K] [--file-order]\n",
               problem.c_str());
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mb" || arg == "--rounds" || arg == "--ahead-mb" || arg == "--threads") {
      if (++i >= argc) Usage(arg + " needs a value");
      const long value = WholeNumberArg(arg, argv[i], 1'000'000, Usage);
      if (arg == "--mb") options.mb = value;
      if (arg == "--rounds") options.rounds = static_cast<int>(value);
      if (arg == "--ahead-mb") options.ahead_mb = value;
      if (arg == "--threads") options.threads = static_cast<int>(value);
    } else if (arg == "--file-order") {
      options.file_order = true;
    } else if (options.path.empty() && !arg.starts_with("-")) {
      options.path = arg;
    } else {
      Usage("unexpected argument '" + arg + "'");
    }
  }
  if (options.path.empty()) Usage("FILE.h5 is missing");
  return options;
}

[[noreturn]] void Fail(const std::string& what) {
  throw h5feed::Error(h5feed::ErrorCode::kIo, what + ": " + std::strerror(errno));
}

struct Range {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) : size(bytes) {
    if (posix_memalign(reinterpret_cast<void**>(&data), kAlign, std::max<size_t>(bytes, kAlign)))
      throw std::bad_alloc();
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data = nullptr;
  size_t size = 0;
};

// The enclosing range O_DIRECT reads for `range`.
Range Aligned(Range range) {
  const uint64_t start = range.offset / kAlign * kAlign;
  const uint64_t end = (range.offset + range.bytes + kAlign - 1) / kAlign * kAlign;
  return {start, end - start};
}

void PreadAll(int fd, uint8_t* dest, Range range) {
  uint64_t done = 0;
  while (done < range.bytes) {
    const ssize_t got =
        ::pread(fd, dest + done, range.bytes - done, static_cast<off_t>(range.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) Fail("pread");
    if (got == 0) break;  // the end of the file (an aligned range's tail)
    done += static_cast<uint64_t>(got);
  }
}

class Descriptor {
 public:
  Descriptor(const std::string& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC)) {
    if (fd_ < 0) Fail("open " + path);
  }
  ~Descriptor() { ::close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

double ResidentShare(int fd, uint64_t size) {
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) Fail("mmap");
  const uint64_t pages = (size + kAlign - 1) / kAlign;
  std::vector<unsigned char> state(pages);
  ::mincore(map, size, state.data());
  ::munmap(map, size);
  uint64_t resident = 0;
  for (unsigned char s : state) resident += s & 1u;
  return static_cast<double>(resident) / static_cast<double>(pages);
}

// What every line reads, and the machinery they share.
class ColdReads {
 public:
  ColdReads(const Options& options, std::vector<Range> chunks, uint64_t file_size)
      : options_(options), chunks_(std::move(chunks)), file_size_(file_size) {
    for (const Range& c : chunks_) {
      span_end_ = std::max(span_end_, c.offset + c.bytes);
      bytes_ += c.bytes;
      largest_ = std::max(largest_, c.bytes);
    }
  }

  double bytes() const { return static_cast<double>(bytes_); }

  // Drops the file from the page cache; throws when that did not take effect.
  void Drop() const {
    Descriptor fd(options_.path, O_RDONLY);
    ::fdatasync(fd.get());
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    if (ResidentShare(fd.get(), file_size_) > 0.05) {
      throw h5feed::Error(h5feed::ErrorCode::kIo,
                          options_.path +
                              " stayed in the page cache after "
                              "posix_fadvise(DONTNEED) (tmpfs?): nothing cold to "
                              "measure");
    }
  }

  void Dd(int readers) const {
    const uint64_t per = (span_end_ + readers - 1) / readers;
    std::vector<std::thread> threads;
    for (int r = 0; r < readers; ++r) {
      threads.emplace_back([&, r] {
        Descriptor fd(options_.path, O_RDONLY);
        std::vector<uint8_t> block(16 * kMiB);
        const uint64_t end = std::min(span_end_, (r + 1) * per);
        for (uint64_t at = r * per; at < end; at += block.size()) {
          PreadAll(fd.get(), block.data(), {at, std::min<uint64_t>(block.size(), end - at)});
        }
      });
    }
    for (auto& t : threads) t.join();
  }

  void Pread(int threads) const {
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        Descriptor fd(options_.path, O_RDONLY);
        std::vector<uint8_t> buffer(largest_);
        for (size_t i = next++; i < chunks_.size(); i = next++) {
          PreadAll(fd.get(), buffer.data(), chunks_[i]);
        }
      });
    }
    for (auto& w : workers) w.join();
  }

  // posix_fadvise(WILLNEED) ahead of a consumer that preads (or maps) each chunk in order.
  void WillNeed(bool map) const {
    Descriptor fd(options_.path, O_RDONLY);
    std::vector<uint8_t> buffer(largest_);
    const uint64_t limit = static_cast<uint64_t>(options_.ahead_mb) * kMiB;
    size_t advised = 0;
    uint64_t ahead = 0;
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < chunks_.size(); ++i) {
      while (advised < chunks_.size() &&
             (advised <= i || ahead + chunks_[advised].bytes <= limit)) {
        ::posix_fadvise(fd.get(), static_cast<off_t>(chunks_[advised].offset),
                        static_cast<off_t>(chunks_[advised].bytes), POSIX_FADV_WILLNEED);
        ahead += chunks_[advised].bytes;
        ++advised;
      }
      if (map) {
        const Range r = Aligned(chunks_[i]);
        void* base =
            ::mmap(nullptr, r.bytes, PROT_READ, MAP_SHARED, fd.get(), static_cast<off_t>(r.offset));
        if (base == MAP_FAILED) Fail("mmap");
        if (::madvise(base, r.bytes, MADV_POPULATE_READ) != 0) Fail("madvise");
        sink = sink + static_cast<uint8_t*>(base)[0];
        ::munmap(base, r.bytes);
      } else {
        PreadAll(fd.get(), buffer.data(), chunks_[i]);
      }
      ahead -= chunks_[i].bytes;
    }
  }

  // K threads read ahead into buffers; the consumer takes chunks in order.
  void Threads(bool direct) const {
    Descriptor fd(options_.path, O_RDONLY | (direct ? O_DIRECT : 0));
    const uint64_t limit = static_cast<uint64_t>(options_.ahead_mb) * kMiB;
    std::mutex mutex;
    std::condition_variable changed;
    size_t next = 0, consumed = 0;
    uint64_t held = 0;
    std::vector<bool> done(chunks_.size());
    std::vector<std::thread> workers;
    for (int t = 0; t < options_.threads; ++t) {
      workers.emplace_back([&] {
        AlignedBuffer buffer(Aligned({0, largest_ + kAlign}).bytes);
        for (;;) {
          size_t i = 0;
          {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] {
              return next >= chunks_.size() || next == consumed ||
                     held + chunks_[next].bytes <= limit;
            });
            if (next >= chunks_.size()) return;
            i = next++;
            held += chunks_[i].bytes;
          }
          PreadAll(fd.get(), buffer.data, direct ? Aligned(chunks_[i]) : chunks_[i]);
          std::lock_guard lock(mutex);
          done[i] = true;
          changed.notify_all();
        }
      });
    }
    for (size_t i = 0; i < chunks_.size(); ++i) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return done[i]; });
      held -= chunks_[i].bytes;
      consumed = i + 1;
      changed.notify_all();
    }
    for (auto& w : workers) w.join();
  }

  void Uring(bool direct) const {
    Descriptor fd(options_.path, O_RDONLY | (direct ? O_DIRECT : 0));
    const uint64_t limit = static_cast<uint64_t>(options_.ahead_mb) * kMiB;
    io_uring ring;
    if (io_uring_queue_init(256, &ring, 0) < 0) Fail("io_uring_queue_init");
    std::map<size_t, std::unique_ptr<AlignedBuffer>> buffers;
    std::vector<bool> done(chunks_.size());
    size_t next = 0;
    uint64_t held = 0;
    auto submit = [&] {
      while (next < chunks_.size() && buffers.size() < 128 &&
             (buffers.empty() || held + chunks_[next].bytes <= limit)) {
        const Range r = direct ? Aligned(chunks_[next]) : chunks_[next];
        auto buffer = std::make_unique<AlignedBuffer>(r.bytes);
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        io_uring_prep_read(sqe, fd.get(), buffer->data, static_cast<unsigned>(r.bytes), r.offset);
        io_uring_sqe_set_data64(sqe, next);
        buffers[next] = std::move(buffer);
        held += chunks_[next].bytes;
        ++next;
      }
      io_uring_submit(&ring);
    };
    for (size_t i = 0; i < chunks_.size(); ++i) {
      submit();
      while (!done[i]) {
        io_uring_cqe* cqe = nullptr;
        if (io_uring_wait_cqe(&ring, &cqe) < 0) Fail("io_uring_wait_cqe");
        if (cqe->res < 0) {
          errno = -cqe->res;
          Fail("io_uring read");
        }
        // A short read (buffered reads may stop early) is not resubmitted here: the bytes
        // counted are what the line was asked to read, so a short line would look faster;
        // none were seen, and the check below says so if one comes.
        const size_t chunk = io_uring_cqe_get_data64(cqe);
        const uint64_t want = chunks_[chunk].bytes;
        if (static_cast<uint64_t>(cqe->res) <
            std::min<uint64_t>(want, file_size_ - chunks_[chunk].offset)) {
          std::fprintf(stderr, "cold_read_costs: a short io_uring read (%d of %llu bytes)\n",
                       cqe->res, static_cast<unsigned long long>(want));
        }
        done[chunk] = true;
        io_uring_cqe_seen(&ring, cqe);
      }
      buffers.erase(i);
      held -= chunks_[i].bytes;
    }
    io_uring_queue_exit(&ring);
  }

 private:
  const Options& options_;
  const std::vector<Range> chunks_;
  const uint64_t file_size_;
  uint64_t span_end_ = 0;
  uint64_t bytes_ = 0;
  uint64_t largest_ = 0;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int Run(const Options& options) {
  const h5feed::index::DatasetIndex index =
      h5feed::index::OpenDatasetIndex(options.path, h5feed::index::IndexOptions{});
  if (index.chunks.empty()) {
    throw h5feed::Error(h5feed::ErrorCode::kUnsupported,
                        options.path + " has no chunk table (not an h5feed file?)");
  }
  std::vector<Range> chunks;
  const uint64_t limit = static_cast<uint64_t>(options.mb) * 1'000'000;
  uint64_t total = 0;
  for (const auto& c : index.chunks) {
    if (total >= limit) break;
    chunks.push_back({c.address, c.stored_bytes});
    total += c.stored_bytes;
  }
  if (!options.file_order) std::shuffle(chunks.begin(), chunks.end(), std::mt19937_64(0));
  uint64_t file_size = 0;
  {
    Descriptor fd(options.path, O_RDONLY);
    file_size = static_cast<uint64_t>(::lseek(fd.get(), 0, SEEK_END));
  }
  const ColdReads reads(options, chunks, file_size);
  const std::string ahead = std::to_string(options.ahead_mb) + " MiB";
  const std::string k = std::to_string(options.threads);
  const std::vector<std::pair<std::string, std::function<void()>>> lines = {
      {"dd x4 (16 MiB preads, file quarters)", [&] { reads.Dd(4); }},
      {"dd x1 (16 MiB preads)", [&] { reads.Dd(1); }},
      {"pread x1 (a chunk a call)", [&] { reads.Pread(1); }},
      {"pread x2", [&] { reads.Pread(2); }},
      {"willneed " + ahead + " + pread x1", [&] { reads.WillNeed(false); }},
      {"willneed " + ahead + " + map, populate", [&] { reads.WillNeed(true); }},
      {k + " threads pread, " + ahead, [&] { reads.Threads(false); }},
      {k + " threads O_DIRECT, " + ahead, [&] { reads.Threads(true); }},
      {"io_uring, " + ahead, [&] { reads.Uring(false); }},
      {"io_uring O_DIRECT, " + ahead, [&] { reads.Uring(true); }},
  };
  std::vector<std::vector<double>> rates(lines.size()), ratios(lines.size());
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<double> rate(lines.size());
    for (size_t n = 0; n < lines.size(); ++n) {
      const size_t line = round % 2 ? lines.size() - 1 - n : n;
      reads.Drop();
      const auto start = Clock::now();
      lines[line].second();
      rate[line] =
          reads.bytes() / 1e6 / std::chrono::duration<double>(Clock::now() - start).count();
    }
    for (size_t line = 0; line < lines.size(); ++line) {
      rates[line].push_back(rate[line]);
      ratios[line].push_back(rate[line] / rate[0]);
    }
  }
  std::printf(
      "%s: %zu chunks, %.0f MB of stored bytes in %s chunk order, cold, median of %d "
      "rounds\n\n| way | MB/s | / dd x4 (same round) |\n| --- | ---: | ---: |\n",
      options.path.c_str(), chunks.size(), reads.bytes() / 1e6,
      options.file_order ? "file" : "random", options.rounds);
  for (size_t line = 0; line < lines.size(); ++line) {
    std::printf("| %s | %.0f | %.2f |\n", lines[line].first.c_str(), Median(rates[line]),
                Median(ratios[line]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseArgs(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cold_read_costs: error: %s\n", e.what());
    return 1;
  }
}
