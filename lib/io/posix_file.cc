// OpenPosixFile (random_access_file.h): pread(2) and mmap(2) on a read-only descriptor.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <limits>

#include "h5feed/error.h"
#include "io/io_errors.h"
#include "io/random_access_file.h"
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

// Thread-safety: ReadAt only calls pread, which keeps no file position; MapAt maps and
// populates a new range per call. The descriptor is owned and closed by the destructor (after
// which mappings made from it stay valid: they hold the file themselves).
class PosixFile final : public RandomAccessFile {
 public:
  PosixFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override {
    constexpr uint64_t kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());
    if (offset > kMaxOffset || dest.size() > kMaxOffset - offset) {
      // No file this large exists: the offset came from damaged metadata.
      throw TruncatedError(path_, offset, dest.size(), size_, dest.size());
    }
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
    if (!mappable_.load(std::memory_order_relaxed) || length == 0 || offset > size_ ||
        length > size_ - offset) {
      return nullptr;
    }
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
    // Only pages the page cache holds are worth mapping: one missing page would be read from
    // the disk by a page fault, in read_ahead_kb pieces, where ReadAt asks for the whole
    // range at once, which the disk serves faster (docs/reader.md, "What it costs").
    if (!Resident(base, mapped_bytes)) return nullptr;
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

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  // Whether the page cache holds the mapping [base, base + bytes), judged by a sample of its
  // pages: the first, the last and evenly spaced ones between (mincore(2), a page-cache
  // lookup per page asked about, no read). Asking about every page of a chunk made the check a
  // visible share of the loader's time on a cached uncompressed file (docs/reader.md, "What it
  // costs"). The pages of a chunk are read
  // in, and evicted, together, so a sample tells; a page it misses costs speed, never
  // correctness (MADV_POPULATE_READ reads it in, or reports the error).
  static bool Resident(void* base, size_t bytes) {
    constexpr uint64_t kSampledPages = 16;
    const uint64_t pages = (bytes + PageSize() - 1) / PageSize();
    const uint64_t asked = std::min(pages, kSampledPages);
    for (uint64_t i = 0; i < asked; ++i) {
      const uint64_t page = asked == 1 ? 0 : i * (pages - 1) / (asked - 1);
      unsigned char state = 0;
      if (::mincore(static_cast<uint8_t*>(base) + page * PageSize(), 1, &state) != 0 ||
          (state & 1) == 0) {
        return false;
      }
    }
    return true;
  }

  const std::string path_;
  const int fd_;
  const uint64_t size_;  // at open; a file that shrinks later is caught by ReadAt and MapAt
  mutable std::atomic<bool> mappable_{true};
};

}  // namespace

std::unique_ptr<RandomAccessFile> OpenPosixFile(const std::string& path) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error_number = errno;
    if (error_number == ENOENT) {
      throw MakeError(ErrorCode::kNotFound, "{} does not exist", path);
    }
    throw MakeError(ErrorCode::kIo, "cannot open {} for reading: {} (errno {})", path,
                    ErrnoText(error_number), error_number);
  }
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
  return std::make_unique<PosixFile>(path, fd, static_cast<uint64_t>(info.st_size));
}

}  // namespace h5feed::io
