#pragma once
// Ranges of a local file read ahead of their reads (LocalFile::PrefetchAt), so that the device
// always has enough requests to serve: each range is read by a reading thread of this object,
// up to as many at once as the in-flight target asks for (in_flight_estimator.h), while the
// reader's own threads decode and gather. How a range is read depends on how the file is read:
//
//   page cache  posix_fadvise(WILLNEED) over the range, in pieces the kernel takes whole (it
//               reads at most max(read_ahead_kb, max_sectors_kb) per call), then a one-byte
//               read of each sampled page the page cache lacked before (page_cache_view.h), in
//               file order: the last returns when the range has arrived, which times it (a
//               page the kernel's own read-ahead had brought would return at once). The pages
//               stay in the page cache, where the reader's own read or mapping of the range
//               finds them (or waits for those still on their way): no copy of ours, and a
//               mapped chunk is used in place as a cached one is.
//   direct      (O_DIRECT) the range's aligned enclosing range read into a buffer of ours
//               (aligned_buffer.h); the read of exactly that range takes the buffer.
//
// Buffers are kept for reuse; a buffer handed over (Take) comes back when its last holder lets
// it go. Bytes queued or being read stay within the in-flight target: what the device needs on
// its way (Little's law counts requests in the device, not answers waiting for their reader).
// Bytes held at once (those, and the ranges arrived and not yet taken) stay within the limit
// the reader grants, and so do direct buffers kept for reuse with them (but two, whatever the
// limit). So a reader slower than the device keeps its queue full and the ranges it will load
// next arrived, rather than asking for the next range only as it takes one.
//
// Thread-safety: every member may be called from many threads at once (internal mutex; reads
// happen outside it). The destructor stops the reading threads and waits for the reads they
// are in; buffers already handed over stay valid.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/ahead.h"
#include "io/aligned_buffer.h"
#include "io/in_flight_estimator.h"
#include "io/page_cache_view.h"

namespace h5feed::io {

class DiskReadahead {
 public:
  // Reads ranges of `fd` (open for reading, with O_DIRECT when `direct`; `path` names it in
  // errors, `size` bytes long), which must outlive this object, as `view` (of the same file;
  // page-cache reads only) must. `advice_piece`: the most bytes one WILLNEED is asked for.
  DiskReadahead(int fd, std::string path, uint64_t size, bool direct, uint64_t advice_piece,
                const PageCacheView* view);
  ~DiskReadahead();
  DiskReadahead(const DiskReadahead&) = delete;
  DiskReadahead& operator=(const DiskReadahead&) = delete;

  // Queues [offset, offset + length) for a reading thread. kHeld: queued or read already;
  // kFull: as many bytes are on their way as the device needs, or held as the limit grants;
  // kNotNeeded: an empty range or one outside the file (the read reports it). `cached`: the
  // page cache holds the range already; it is held as arrived, unread, so that reading ahead of
  // a file the page cache partly holds still stops at the limit.
  Ahead Start(uint64_t offset, uint64_t length, bool cached = false);

  // What a read of exactly [offset, offset + length) finds, after which the range is no longer
  // held. Page cache: whether its pages were asked for (then they are in the page cache or on
  // their way). Direct: its bytes (waiting for a read in progress), or none when the range was
  // only queued (the caller reads it now, rather than wait behind other reads) or its read
  // failed (the caller's own read reports why).
  struct Taken {
    bool asked = false;                    // the range's bytes are here or on their way
    std::shared_ptr<const uint8_t> bytes;  // direct: the range's bytes, valid while held
  };
  Taken Take(uint64_t offset, uint64_t length);

  // Direct: reads [offset, offset + length) on the calling thread into a buffer of this
  // object's, handed over as Take hands them. Throws Error(kIo) when the read fails,
  // Error(kCorrupt) when the file ends first.
  std::shared_ptr<const uint8_t> ReadHere(uint64_t offset, uint64_t length);

  // The range, or every range, will not be read after all.
  void Drop(uint64_t offset, uint64_t length);
  void DropAll();
  // The most bytes held at once, buffers kept for reuse included (memory the reader grants).
  void SetLimit(uint64_t bytes);

  uint64_t held_bytes() const;
  const InFlightEstimator& estimator() const { return estimator_; }

 private:
  enum class State { kQueued, kReading, kArrived, kFailed };
  struct Range {
    uint64_t offset = 0;
    uint64_t length = 0;
    State state = State::kQueued;
    bool held = true;                       // in ranges_; false once taken or dropped
    std::unique_ptr<AlignedBuffer> buffer;  // direct, arrived: the aligned enclosing range
  };
  using Key = std::pair<uint64_t, uint64_t>;  // offset, length
  struct Home;

  void ReadingThread();
  // Reads `range` outside the mutex: advises it and waits for it, or fills `buffer` (made when
  // null). Whether the range arrived; `timed`: whether its time is the device's (false when
  // the page cache held the sampled pages already).
  bool ReadRange(const Range& range, std::unique_ptr<AlignedBuffer>& buffer, bool& timed) const;
  // `buffer`'s bytes from `skip` on, given back here when their last holder lets go.
  std::shared_ptr<const uint8_t> HandOver(std::unique_ptr<AlignedBuffer> buffer, uint64_t skip);
  void Recycle(std::unique_ptr<AlignedBuffer> buffer);
  // Under mutex_ (which they may release for a while):
  // Stops holding `range`, keeping its buffer when no thread reads into it.
  void Release(Range& range, std::unique_lock<std::mutex>& lock);
  // Keeps `buffer` for reuse while it fits the limit, else frees it.
  void KeepForReuse(std::unique_ptr<AlignedBuffer> buffer, std::unique_lock<std::mutex>& lock);
  // A kept buffer of at least `bytes`, or nullptr (then the kept ones, too small, are freed,
  // and the caller allocates one outside the mutex).
  std::unique_ptr<AlignedBuffer> ReuseBuffer(uint64_t bytes);

  const int fd_;
  const std::string path_;
  const uint64_t size_;
  const bool direct_;
  const uint64_t advice_piece_;
  const PageCacheView* const view_;
  InFlightEstimator estimator_{InFlightEstimator::kDisk};
  const std::shared_ptr<Home> home_;

  mutable std::mutex mutex_;
  std::condition_variable work_;     // a range was queued, or stopping
  std::condition_variable arrived_;  // a range's read ended
  // State below is protected by mutex_.
  std::map<Key, std::shared_ptr<Range>> ranges_;  // held: queued, being read, or arrived
  std::deque<std::shared_ptr<Range>> queue_;      // oldest first; released ones are skipped
  std::vector<std::unique_ptr<AlignedBuffer>> free_buffers_;
  uint64_t held_ = 0;        // bytes of ranges_
  uint64_t in_flight_ = 0;   // bytes of ranges_ queued or being read
  uint64_t free_bytes_ = 0;  // capacity of free_buffers_
  uint64_t limit_ = uint64_t{128} << 20;
  size_t threads_idle_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace h5feed::io
