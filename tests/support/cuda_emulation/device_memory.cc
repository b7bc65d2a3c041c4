#include "device_memory.h"

#include <cstring>
#include <iterator>
#include <new>

namespace cuda_emulation {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

std::align_val_t Alignment(Memory kind) {
  return std::align_val_t{kind == Memory::kDevice ? size_t{256} : size_t{4096}};
}

void Release(void* pointer, Memory kind) { ::operator delete(pointer, Alignment(kind)); }

}  // namespace

DeviceMemory::~DeviceMemory() {
  for (auto& [pointer, allocation] : quarantine_) Release(pointer, allocation.kind);
}

void* DeviceMemory::Allocate(size_t bytes, Memory kind) {
  bytes = bytes == 0 ? 1 : bytes;
  void* pointer = ::operator new(bytes, Alignment(kind), std::nothrow);
  if (pointer == nullptr) return nullptr;
  std::memset(pointer, 0xcd, bytes);
  std::lock_guard lock(mutex_);
  live_[reinterpret_cast<uintptr_t>(pointer)] = Allocation{bytes, kind};
  return pointer;
}

bool DeviceMemory::Free(void* pointer, Memory kind) {
  std::lock_guard lock(mutex_);
  const auto found = live_.find(reinterpret_cast<uintptr_t>(pointer));
  if (found == live_.end() || found->second.kind != kind) return false;
  const Allocation allocation = found->second;
  live_.erase(found);
  if (kind == Memory::kPinned || kAddressSanitizer) {
    Release(pointer, kind);
    return true;
  }
  std::memset(pointer, 0xdd, allocation.bytes);
  quarantine_.emplace_back(pointer, allocation);
  quarantined_bytes_ += allocation.bytes;
  while (quarantined_bytes_ > kQuarantineBytes) {
    const auto [oldest, freed] = quarantine_.front();
    quarantine_.pop_front();
    quarantined_bytes_ -= freed.bytes;
    Release(oldest, freed.kind);
  }
  return true;
}

Place DeviceMemory::Locate(const void* pointer, size_t bytes) const {
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard lock(mutex_);
  auto after = live_.upper_bound(address);
  if (after == live_.begin()) return Place::kHost;
  const auto& [start, allocation] = *std::prev(after);
  if (address >= start + allocation.bytes) return Place::kHost;
  if (address + bytes > start + allocation.bytes) return Place::kStraddles;
  return allocation.kind == Memory::kDevice ? Place::kDevice : Place::kPinned;
}

}  // namespace cuda_emulation
