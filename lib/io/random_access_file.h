#pragma once
// The reader's one seam to the file system: positional reads of a file, from many threads at
// once, outside HDF5 (and its global lock). Tests substitute implementations that fail, return
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
  // Which version of a remote object is read (its ETag, else Last-Modified and size): every
  // read returns bytes of that version or throws. "" for a local file.
  virtual std::string version() const { return ""; }

  // Read-ahead, for files whose reads wait on a network (a local file ignores it): PrefetchAt
  // starts fetching [offset, offset + length) so that a later ReadAt of exactly that range
  // finds its bytes here or on their way. kFull: the file holds as many prefetched bytes as
  // it should (the measured bandwidth x round trip, within LimitPrefetch): hint again later.
  enum class Prefetch { kStarted, kHeld, kFull, kIgnored };
  virtual Prefetch PrefetchAt(uint64_t /*offset*/, uint64_t /*length*/) const {
    return Prefetch::kIgnored;
  }
  // Drops what was prefetched (or is on its way) for that range, or for every range: it will
  // not be read after all.
  virtual void DropPrefetch(uint64_t /*offset*/, uint64_t /*length*/) const {}
  virtual void DropAllPrefetches() const {}
  // The most bytes prefetches may hold at once (memory the caller grants them).
  virtual void LimitPrefetch(uint64_t /*bytes*/) const {}

  // The bytes read from [offset, offset + length) failed a check (a checksum): drops every
  // copy the file keeps of them (prefetched, spilled to disk). Returns whether the next ReadAt
  // of the range goes back to the source and may then succeed (a remote file: a response
  // corrupted on its way); false for a local file, whose bytes are what they are.
  virtual bool Forget(uint64_t /*offset*/, uint64_t /*length*/) const { return false; }

  // Reads waiting on a network, and those that start before ResumeReads, end at once with
  // Error(kCancelled): a reader that stops does not wait for a slow or stalled server. A local
  // file ignores it.
  virtual void CancelReads() const {}
  virtual void ResumeReads() const {}
};

// pread(2) on a read-only descriptor (O_CLOEXEC), retrying EINTR and short reads; MapAt with
// mmap(2), mincore(2) and madvise(MADV_POPULATE_READ) (Linux 5.14); size() is the size at
// open. Throws Error(kNotFound) when `path` does not exist, kInvalidArgument when it is not a
// regular file, kIo (with the errno text) when it cannot be opened.
std::unique_ptr<RandomAccessFile> OpenPosixFile(const std::string& path);

}  // namespace h5feed::io
