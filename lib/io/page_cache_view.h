#pragma once
// Which pages of a file the page cache holds, asked without reading anything: mincore(2) on
// a mapping of the whole file that nothing ever touches (address space only; a page fault would
// read the page, a mincore does not). A file is read in, and evicted, a range at a time, so a
// sample of a range's pages tells whether the range is there: the first, the last and evenly
// spaced ones between (a page-cache lookup per page asked about). Asking about every page of a
// chunk made the check a visible share of the loader's time on a cached uncompressed file
// (docs/reader.md, "What it costs"); a page the sample misses costs speed, never correctness.
//
// Thread-safety: every member may be called from many threads at once. Borrows the
// descriptor only while constructing.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace h5feed::io {

class PageCacheView {
 public:
  // A view of the file open as `fd`, `size` bytes long. Where the file cannot be mapped (a
  // file system without mmap), every range reads as absent.
  PageCacheView(int fd, uint64_t size);
  ~PageCacheView();
  PageCacheView(const PageCacheView&) = delete;
  PageCacheView& operator=(const PageCacheView&) = delete;

  // Whether the sampled pages of [offset, offset + length) are all in the page cache.
  bool Holds(uint64_t offset, uint64_t length) const;
  // The file offsets of the sampled pages of the range the page cache lacks, in file order.
  std::vector<uint64_t> MissingPages(uint64_t offset, uint64_t length) const;
  // Whether it holds the whole file: `pages` pages sampled across it.
  bool HoldsFile(uint64_t pages = 256) const;

 private:
  // Calls `page(file_offset, resident)` for up to `samples` pages of the range, in order;
  // stops when it returns false.
  template <typename Visit>
  void Sample(uint64_t offset, uint64_t length, uint64_t samples, Visit page) const;

  const uint8_t* base_ = nullptr;  // the whole file, mapped; null when it cannot be
  uint64_t size_ = 0;
};

}  // namespace h5feed::io
