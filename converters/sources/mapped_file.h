#pragma once
// A read-only memory map of a whole file: the sources read CIFAR records and NumPy rows
// straight from the page cache, so a 10 GiB array is never loaded whole and only the rows a
// conversion touches are ever read from disk.
//
// Thread-safety: immutable after construction; bytes() may be read from any number of threads.
// Ownership: owns the mapping (munmap in the destructor); move-only.

#include <cstdint>
#include <span>
#include <string>

namespace h5feed::converters {

class MappedFile {
 public:
  // Maps `path` read-only. Throws Error(kNotFound) when it does not exist, kIo when it cannot
  // be opened or mapped. An empty file maps to an empty span.
  explicit MappedFile(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const { return path_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }

 private:
  void Unmap() noexcept;

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace h5feed::converters
