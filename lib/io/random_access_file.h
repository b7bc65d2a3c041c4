#pragma once
// The reader's one seam to the file system: positional reads of a file, from many threads at
// once, outside HDF5 (and its global lock). A file read over a network adds what only it needs
// (remote/remote_file.h). Tests substitute implementations that fail, return
// short or return garbage (leveldb's Env, fmt's posix-mock.h) to prove the reader reports
// such faults instead of crashing or returning wrong pixels.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/mapped_range.h"

namespace h5feed::io {

// Thread-safety: ReadAt and MapAt may be called from many threads at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads exactly dest.size() bytes at `offset`. Throws Error(kIo) when the system refuses
  // (naming the file, offset, length and errno text), Error(kCorrupt) when the file ends first
  // (a truncated file).
  virtual void ReadAt(uint64_t offset, std::span<uint8_t> dest) const = 0;

  // The `length` bytes at `offset`, mapped read-only with every page present (MappedRange), or
  // nullptr when they are better read with ReadAt: the file cannot be mapped (a file system
  // without mmap, a kernel without MADV_POPULATE_READ, a test's file), or the page cache does
  // not hold the range, judged by a sample of its pages (from the disk, one large read beats
  // page faults). Throws as ReadAt does when the pages cannot be had (Error(kCorrupt) past the
  // end of the file, Error(kIo) for a failed read), so a mapped range is never touched where a
  // read would fault (SIGBUS). What remains: a file truncated by another process while a range
  // of it is mapped faults on the next access; LoaderOptions::map_file = false reads
  // everything with ReadAt.
  virtual std::unique_ptr<MappedRange> MapAt(uint64_t /*offset*/, size_t /*length*/) const {
    return nullptr;
  }
  virtual uint64_t size() const = 0;
  // What messages name the file by (a URL without its query: no credentials).
  virtual const std::string& path() const = 0;
};

// pread(2) on a read-only descriptor (O_CLOEXEC), retrying EINTR and short reads; MapAt with
// mmap(2), mincore(2) and madvise(MADV_POPULATE_READ) (Linux 5.14); size() is the size at
// open. Throws Error(kNotFound) when `path` does not exist, kInvalidArgument when it is not a
// regular file, kIo (with the errno text) when it cannot be opened.
std::unique_ptr<RandomAccessFile> OpenPosixFile(const std::string& path);

}  // namespace h5feed::io
