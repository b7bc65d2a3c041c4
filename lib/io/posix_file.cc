// OpenLocalFile (local_file.h) and OpenPosixFile (random_access_file.h): pread(2), mmap(2) and
// reading ahead on a read-only descriptor, through the page cache or with O_DIRECT.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "h5feed/error.h"
#include "io/disk_readahead.h"
#include "io/io_errors.h"
#include "io/local_file.h"
#include "io/page_cache_view.h"
#include "make_error.h"

namespace h5feed::io {
namespace {

// Linux transfers at most 0x7ffff000 bytes per read call (read(2), NOTES); asking for less
// keeps every call within that on any kernel, and the loop below joins the pieces.
constexpr size_t kMaxReadPerCall = size_t{1} << 30;

uint64_t PageSize() {
  static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// One number of a block device's queue settings in KiB (/sys/dev/block/M:m/queue/NAME, or the
// queue of the disk a partition is on), 0 when there is none (a file system without a block
// device of its own: tmpfs, overlay, NFS, FUSE).
uint64_t QueueKib(dev_t device, const char* name) {
  const std::string base =
      "/sys/dev/block/" + std::to_string(major(device)) + ":" + std::to_string(minor(device));
  for (const char* queue : {"/queue/", "/../queue/"}) {
    std::ifstream file(base + queue + name);
    uint64_t kib = 0;
    if (file >> kib) return kib;
  }
  return 0;
}

// The most bytes one posix_fadvise(WILLNEED) reads: the kernel cuts the advice to the larger of
// the device's read_ahead_kb and max_sectors_kb (mm/readahead.c, force_page_cache_ra), so a
// longer range is advised in pieces of this size. 128 KiB, the kernel's default read-ahead,
// where the device is not known.
uint64_t AdvicePiece(dev_t device) {
  const uint64_t kib =
      std::max(QueueKib(device, "read_ahead_kb"), QueueKib(device, "max_sectors_kb"));
  return kib > 0 ? kib << 10 : uint64_t{128} << 10;
}

// Closes a descriptor when destroyed.
struct OwnedDescriptor {
  explicit OwnedDescriptor(int descriptor) : fd(descriptor) {}
  ~OwnedDescriptor() { ::close(fd); }
  OwnedDescriptor(const OwnedDescriptor&) = delete;
  OwnedDescriptor& operator=(const OwnedDescriptor&) = delete;
  const int fd;
};

// Thread-safety: ReadAt only calls pread, which keeps no file position; MapAt maps and
// populates a new range per call; the read-ahead has its own lock. The descriptor is owned and
// closed last, after the read-ahead's threads have stopped (members go in reverse order;
// mappings made from it stay valid: they hold the file themselves).
class PosixFile final : public LocalFile {
 public:
  PosixFile(std::string path, int fd, const struct stat& info, const LocalFileOptions& options)
      : path_(std::move(path)),
        descriptor_(fd),
        fd_(fd),
        size_(static_cast<uint64_t>(info.st_size)),
        direct_(options.direct),
        map_(options.map && !options.direct),
        // A direct file's reads never use the page cache: nothing there to ask about.
        view_(options.direct ? -1 : fd, options.direct ? 0 : size_),
        readahead_(fd, path_, size_, options.direct, AdvicePiece(info.st_dev),
                   options.direct ? nullptr : &view_) {}
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override {
    constexpr uint64_t kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());
    if (offset > kMaxOffset || dest.size() > kMaxOffset - offset) {
      // No file this large exists: the offset came from damaged metadata.
      throw TruncatedError(path_, offset, dest.size(), size_, dest.size());
    }
    if (direct_) {
      if (dest.empty()) return;
      std::shared_ptr<const uint8_t> bytes = readahead_.Take(offset, dest.size()).bytes;
      if (!bytes) bytes = readahead_.ReadHere(offset, dest.size());
      std::memcpy(dest.data(), bytes.get(), dest.size());
      return;
    }
    readahead_.Take(offset, dest.size());  // its pages are in the page cache, or coming
    size_t done = 0;
    while (done < dest.size()) {
      const size_t want = std::min(dest.size() - done, kMaxReadPerCall);
      const ssize_t got = ::pread(fd_, dest.data() + done, want, static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;  // a signal arrived before any byte was read: retry
        throw ReadFailedError(path_, offset, dest.size(), errno);
      }
      if (got == 0) {
        throw TruncatedError(path_, offset, dest.size(), offset + done, dest.size() - done);
      }
      done += static_cast<size_t>(got);
    }
  }

  std::unique_ptr<MappedRange> MapAt(uint64_t offset, size_t length) const override {
    // Past the end as the file was at open: ReadAt words the truncation precisely.
    if (length == 0 || offset > size_ || length > size_ - offset) return nullptr;
    if (direct_) {
      // The buffer the range was read into is the range: handed over, not copied.
      std::shared_ptr<const uint8_t> bytes = readahead_.Take(offset, length).bytes;
      if (!bytes) bytes = readahead_.ReadHere(offset, length);
      const std::span<const uint8_t> range(bytes.get(), length);
      return std::make_unique<MappedRange>(std::shared_ptr<const void>(std::move(bytes)), range);
    }
    const bool asked = readahead_.Take(offset, length).asked;
    if (!map_ || !mappable_.load(std::memory_order_relaxed)) return nullptr;
    const uint64_t start = offset - offset % PageSize();
    const auto mapped_bytes = static_cast<size_t>(offset - start) + length;
    void* base =
        ::mmap(nullptr, mapped_bytes, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(start));
    if (base == MAP_FAILED) {
      mappable_.store(false, std::memory_order_relaxed);  // this file system does not map
      return nullptr;
    }
    auto mapped = std::make_unique<MappedRange>(
        base, mapped_bytes,
        std::span<const uint8_t>(static_cast<const uint8_t*>(base) + (offset - start), length));
    // Only pages the page cache holds, or that a read ahead asked for, are worth mapping: a
    // page nobody asked for would be read from the disk by a page fault, in read_ahead_kb
    // pieces, where ReadAt asks for the whole range at once, which the disk serves faster
    // (docs/reader.md, "What it costs"). Pages on their way are waited for by the populate.
    if (!asked && !view_.Holds(offset, length)) return nullptr;
    // Every page present now, or an errno instead of a SIGBUS at the first touch.
    int result = 0;
    do {
      result = ::madvise(base, mapped_bytes, MADV_POPULATE_READ);
    } while (result != 0 && errno == EINTR);
    if (result == 0) return mapped;
    const int error_number = errno;
    if (error_number == EFAULT) {
      // A page the file no longer has: it shrank since it was opened.
      struct stat info {};
      const uint64_t end = ::fstat(fd_, &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
      throw TruncatedError(path_, offset, length, end,
                           offset + length > end ? offset + length - end : length);
    }
    if (error_number == EIO || error_number == EHWPOISON) {
      throw ReadFailedError(path_, offset, length, error_number);
    }
    // EINVAL: a kernel before 5.14. ENOMEM and the rest: read instead, from now on.
    mappable_.store(false, std::memory_order_relaxed);
    return nullptr;
  }

  Ahead PrefetchAt(uint64_t offset, uint64_t length) override {
    if (length == 0 || offset >= size_ || length > size_ - offset) return Ahead::kNotNeeded;
    return readahead_.Start(offset, length, !direct_ && view_.Holds(offset, length));
  }
  void DropPrefetch(uint64_t offset, uint64_t length) override { readahead_.Drop(offset, length); }
  void DropAllPrefetches() override { readahead_.DropAll(); }
  void LimitPrefetch(uint64_t bytes) override { readahead_.SetLimit(bytes); }
  bool direct() const override { return direct_; }

  bool InPageCache() const override { return !direct_ && view_.HoldsFile(); }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const OwnedDescriptor descriptor_;  // closed after readahead_ stopped reading it
  const int fd_;
  const uint64_t size_;  // at open; a file that shrinks later is caught by ReadAt and MapAt
  const bool direct_;
  const bool map_;
  mutable std::atomic<bool> mappable_{true};
  const PageCacheView view_;  // which ranges the page cache holds
  mutable DiskReadahead readahead_;
};

int OpenDescriptor(const std::string& path, bool direct) {
  const int flags = O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0);
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags);
  } while (fd < 0 && errno == EINTR);
  if (fd >= 0) return fd;
  const int error_number = errno;
  if (error_number == ENOENT) {
    throw Error::MissingInput(fmt::format("{} does not exist", path));
  }
  if (direct && error_number == EINVAL) {
    throw MakeError(ErrorCode::kUnsupported,
                    "the file system of {} does not read with O_DIRECT (tmpfs before Linux 6.6, "
                    "some FUSE and network file systems); read it without direct",
                    path);
  }
  throw MakeError(ErrorCode::kIo, "cannot open {} for reading: {} (errno {})", path,
                  ErrnoText(error_number), error_number);
}

}  // namespace

std::unique_ptr<LocalFile> OpenLocalFile(const std::string& path, const LocalFileOptions& options) {
  const int fd = OpenDescriptor(path, options.direct);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    throw MakeError(ErrorCode::kIo, "cannot stat {}: {}", path, ErrnoText(error_number));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} is not a regular file (a folder or a device?); give the path of an HDF5 file", path);
  }
  return std::make_unique<PosixFile>(path, fd, info, options);
}

std::unique_ptr<RandomAccessFile> OpenPosixFile(const std::string& path) {
  return OpenLocalFile(path, LocalFileOptions{});
}

}  // namespace h5feed::io
