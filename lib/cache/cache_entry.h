#pragma once
// One chunk's slot in the ChunkCache, and what a failed load leaves in it for the tasks waiting
// on that chunk. Shared by the cache (chunk_cache.cc), the table of its entries
// (entry_table.h) and its choice of victim (eviction.h); nothing outside cache/ sees it.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>

#include "h5feed/error.h"

namespace h5feed::cache {

// What a failed load threw. An h5feed::Error is kept as code and message so every waiter throws
// its own copy: no exception object is shared between threads (which also keeps
// ThreadSanitizer quiet: libstdc++'s exception reference counts are invisible to it). Anything
// else is rethrown to the waiters as the one shared exception_ptr.
struct LoadError {
  bool is_error = false;
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::exception_ptr other;

  [[noreturn]] void Throw() const {
    if (is_error) throw Error(code, message);
    std::rethrow_exception(other);
  }
};

// `chunk` is written under the cache's mutex before a load starts; `buffer`, `owner`, `data` and
// the companion are set by the loading thread without the mutex, and everyone else reads them only
// after seeing kReady (or kFailed) under the mutex. All other fields are protected by the cache's
// mutex.
struct CacheEntry {
  enum class State { kLoading, kReady, kFailed };

  int64_t chunk = -1;
  State state = State::kLoading;
  int64_t pins = 0;                   // Refs, waiting Gets and the loading thread
  uint64_t last_use = 0;              // the cache's clock at the last Get or load, for LRU
  size_t slot = 0;                    // position among the resident entries (EntryTable)
  LoadError error;                    // kFailed: what the load threw, for the waiters
  std::unique_ptr<uint8_t[]> buffer;  // LoadTarget::Buffer's, or null
  std::shared_ptr<const void> owner;  // LoadTarget::Adopt's, or null
  std::span<const uint8_t> data;      // the chunk, once kReady
  // LoadTarget::Attach's: what was read with the chunk (the streamed fields' rows), or empty.
  std::shared_ptr<const void> companion_owner;
  std::span<const uint8_t> companion;
};

}  // namespace h5feed::cache
