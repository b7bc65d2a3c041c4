#include "sources/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// Closes the descriptor once the mapping exists (a mapping outlives its descriptor).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: a FIFO given as the input would otherwise wait forever for a writer before
  // the check below could refuse it. Regular files ignore the flag.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    int err = errno;
    if (err == ENOENT) throw MakeError(ErrorCode::kNotFound, "{} does not exist", path);
    throw MakeError(ErrorCode::kIo, "cannot open {}: {}", path, std::strerror(err));
  }
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) {
    throw MakeError(ErrorCode::kIo, "cannot stat {}: {}", path, std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is not a regular file (a pipe or a device cannot be memory-mapped); "
                    "give the path of the file itself",
                    path);
  }
  size_ = static_cast<size_t>(info.st_size);
  if (size_ == 0) return;  // mmap refuses a zero length
  void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) {
    size_ = 0;
    throw MakeError(ErrorCode::kIo, "cannot memory-map {}: {}", path, std::strerror(errno));
  }
  data_ = static_cast<const uint8_t*>(data);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { Unmap(); }

void MappedFile::Unmap() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace h5feed::converters
