// PageCacheView (page_cache_view.h).
#include "io/page_cache_view.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace h5feed::io {
namespace {

uint64_t PageSize() {
  static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

constexpr uint64_t kSampledPages = 16;

}  // namespace

PageCacheView::PageCacheView(int fd, uint64_t size) : size_(size) {
  if (size_ == 0) return;
  void* base = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  if (base != MAP_FAILED) base_ = static_cast<const uint8_t*>(base);
}

PageCacheView::~PageCacheView() {
  if (base_ != nullptr) ::munmap(const_cast<uint8_t*>(base_), size_);
}

template <typename Visit>
void PageCacheView::Sample(uint64_t offset, uint64_t length, uint64_t samples, Visit page) const {
  const uint64_t first = offset / PageSize();
  const uint64_t last = (std::min(offset + std::max<uint64_t>(length, 1), size_) - 1) / PageSize();
  const uint64_t pages = last - first + 1;
  const uint64_t asked = std::min(pages, samples);
  for (uint64_t i = 0; i < asked; ++i) {
    const uint64_t at = (first + (asked == 1 ? 0 : i * (pages - 1) / (asked - 1))) * PageSize();
    unsigned char state = 0;
    const bool resident = base_ != nullptr &&
                          ::mincore(const_cast<uint8_t*>(base_) + at, 1, &state) == 0 &&
                          (state & 1) != 0;
    if (!page(at, resident)) return;
  }
}

bool PageCacheView::Holds(uint64_t offset, uint64_t length) const {
  if (base_ == nullptr || offset >= size_) return false;
  bool holds = true;
  Sample(offset, length, kSampledPages, [&holds](uint64_t, bool resident) {
    holds = resident;
    return resident;
  });
  return holds;
}

std::vector<uint64_t> PageCacheView::MissingPages(uint64_t offset, uint64_t length) const {
  std::vector<uint64_t> missing;
  if (offset >= size_) return missing;
  Sample(offset, length, kSampledPages, [&missing](uint64_t at, bool resident) {
    if (!resident) missing.push_back(at);
    return true;
  });
  return missing;
}

bool PageCacheView::HoldsFile(uint64_t pages) const {
  if (base_ == nullptr) return false;
  bool holds = true;
  Sample(0, size_, pages, [&holds](uint64_t, bool resident) {
    holds = resident;
    return resident;
  });
  return holds;
}

}  // namespace h5feed::io
