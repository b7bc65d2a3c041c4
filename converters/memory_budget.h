#pragma once
// The memory a conversion may hold in decoded images and image buffers at once
// (ConvertOptions::memory, `--memory-limit`), whatever the images' dimensions and the thread
// count. Two kinds of users share it:
//   - the conversion reserves its chunk buffers for its whole run (Reserve);
//   - image decoding takes a lease for each image's decode (Acquire, TryGrow): the encoded file,
//     the decoded pixels and the decoders' own scratch, returned when the image is done.
// A lease that cannot be granted now waits its turn, first come first served, so a large decode
// is not starved by a stream of small ones: it runs when enough is free, alone if need be. A
// request larger than everything the budget can lend is refused by the caller (fits()).
//
// Thread-safety: every member may be called from any thread at once. Leases are owned by whoever
// holds them and give their bytes back when destroyed or released; they must not outlive the
// budget.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>

namespace h5feed::converters {

// 2 GiB: enough for the chunk buffers of 40 threads (2 x threads + 2 groups of about 12 MiB at
// the default chunk size) and for decoding, alone, the largest image --max-pixels lets through
// by default (179 million pixels, 537 MB of RGB) with its file.
inline constexpr int64_t kDefaultMemoryLimit = int64_t{2} << 30;
// Below this a conversion cannot hold a chunk of a 224x224 dataset and decode one photo.
inline constexpr int64_t kMinMemoryLimit = int64_t{32} << 20;

// A memory size as people write it: "512M", "2G", "1.5GiB", "64MB" (K, M, G, T are powers of
// 1024, with or without "iB" or "B", any case), or a plain number of bytes. Throws
// Error(kInvalidArgument) naming `text` for anything else.
int64_t ParseMemorySize(std::string_view text);

class MemoryBudget {
 public:
  // Throws Error(kInvalidArgument) when `limit` is below kMinMemoryLimit.
  explicit MemoryBudget(int64_t limit);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Bytes lent by a MemoryBudget, given back when destroyed, released or moved from.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    ~Lease() { Release(); }
    int64_t bytes() const { return bytes_; }
    void Release();

   private:
    friend class MemoryBudget;
    MemoryBudget* budget_ = nullptr;
    int64_t bytes_ = 0;
  };

  int64_t limit() const { return limit_; }
  // What leases may hold at most: the limit less the reservations.
  int64_t lendable() const;
  // Whether a lease of `bytes` can ever be granted.
  bool fits(int64_t bytes) const { return bytes <= lendable(); }

  // Sets `bytes` aside until Unreserve, for buffers that live as long as a conversion. Throws
  // Error(kInvalidArgument) when less than that is free.
  void Reserve(int64_t bytes);
  void Unreserve(int64_t bytes);

  // Grows `lease` (held on this budget, or empty) to `bytes` if that much is free and nobody
  // waits; never blocks. A lease already that large is left alone.
  bool TryGrow(Lease& lease, int64_t bytes);

  // A lease of `bytes`, after every earlier waiter was served and when that much is free.
  // `before_waiting` runs (without the budget's lock) once this request is queued and before it
  // blocks: a holder of idle leases gives them back there. Throws Error(kInternal) when
  // !fits(bytes): that request could never be served.
  Lease Acquire(int64_t bytes, const std::function<void()>& before_waiting = {});

  // Whether a request is waiting: idle leases should be given back, not kept.
  bool has_waiters() const;

  // The most ever lent and reserved at once (for tests and reports).
  int64_t peak() const;

 private:
  void Give(int64_t bytes);  // by Lease::Release

  const int64_t limit_;
  mutable std::mutex mutex_;
  std::condition_variable turn_;
  // State below is guarded by mutex_.
  int64_t reserved_ = 0;
  int64_t lent_ = 0;
  int64_t peak_ = 0;
  uint64_t next_ticket_ = 0;     // handed to the next request that must wait
  uint64_t serving_ticket_ = 0;  // the waiting request whose turn it is
};

}  // namespace h5feed::converters
