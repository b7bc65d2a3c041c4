#include "memory/host_allocator.h"

#include <doctest/doctest.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::memory {
namespace {

TEST_CASE("page-aligned memory starts on a page, is zero-filled and writable") {
  auto allocator = PageAlignedAllocator();
  constexpr size_t kBytes = 3 * kPageBytes + 5;
  auto* region = static_cast<uint8_t*>(allocator->Allocate(kBytes));
  REQUIRE(region != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(region) % kPageBytes == 0);
  CHECK(region[0] == 0);
  CHECK(region[kBytes - 1] == 0);
  std::memset(region, 0xab, kBytes);
  CHECK(region[kBytes - 1] == 0xab);
  allocator->Deallocate(region, kBytes);
  CHECK(allocator->name() == "page-aligned host");
}

TEST_CASE("page-aligned memory is resident before anything writes it") {
  // So that the first epoch does not page-fault its way through the slots (host_allocator.h).
  auto allocator = PageAlignedAllocator();
  constexpr size_t kBytes = 256 * kPageBytes;
  void* region = allocator->Allocate(kBytes);
  std::vector<unsigned char> pages(256);
  REQUIRE(::mincore(region, kBytes, pages.data()) == 0);
  const auto resident =
      std::count_if(pages.begin(), pages.end(), [](unsigned char page) { return (page & 1) != 0; });
  CHECK(resident == 256);
  allocator->Deallocate(region, kBytes);
}

TEST_CASE("an allocation the system refuses is an Error naming the size") {
  auto allocator = PageAlignedAllocator();
  try {
    allocator->Allocate(size_t{1} << 62);  // 4 EiB: more than any address space holds
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kIo);
    CHECK(std::string(error.what()).find(std::to_string(size_t{1} << 62)) != std::string::npos);
  }
  CHECK_THROWS_AS(allocator->Allocate(0), Error);
}

}  // namespace
}  // namespace h5feed::memory
