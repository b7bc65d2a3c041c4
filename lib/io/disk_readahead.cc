// DiskReadahead (disk_readahead.h).
#include "io/disk_readahead.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "io/io_errors.h"

namespace h5feed::io {
namespace {

// Reading threads at most: each has one range on its way, and the in-flight target (device
// estimator) decides how many are busy. Sixteen ranges of a megabyte or more keep any single
// device's queue deep enough; a thread waiting on the disk costs no CPU.
constexpr size_t kMaxThreads = 16;

// Direct buffers kept for reuse whatever the limit: a reader granted little memory ahead still
// reads without mapping new memory for every chunk (the kernel zeroes each new page).
constexpr size_t kAlwaysKept = 2;

using Clock = InFlightEstimator::Clock;

// Reads up to `length` bytes at `offset` into `dest`, retrying EINTR and short reads. Returns
// the bytes read (fewer at the end of the file), or -errno.
int64_t ReadUpTo(int fd, uint8_t* dest, uint64_t length, uint64_t offset) {
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd, dest + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  return static_cast<int64_t>(done);
}

}  // namespace

// The way back for buffers handed over by Take: their holders may let go after this object is
// gone (the cache of a loader being destroyed), and then the buffer is simply freed.
struct DiskReadahead::Home {
  std::mutex mutex;
  DiskReadahead* owner = nullptr;  // guarded by mutex; null once the owner is destroyed
};

DiskReadahead::DiskReadahead(int fd, std::string path, uint64_t size, bool direct,
                             uint64_t advice_piece, const PageCacheView* view)
    : fd_(fd),
      path_(std::move(path)),
      size_(size),
      direct_(direct),
      advice_piece_(std::max<uint64_t>(advice_piece, kDirectAlignment)),
      view_(view),
      home_(std::make_shared<Home>()) {
  home_->owner = this;
}

DiskReadahead::~DiskReadahead() {
  {
    std::lock_guard lock(home_->mutex);
    home_->owner = nullptr;
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

Ahead DiskReadahead::Start(uint64_t offset, uint64_t length, bool cached) {
  if (length == 0 || offset >= size_ || length > size_ - offset) return Ahead::kNotNeeded;
  const uint64_t target = estimator_.InFlightTarget(length);
  std::unique_lock lock(mutex_);
  if (ranges_.contains({offset, length})) return Ahead::kHeld;
  // The device needs `target` bytes on their way; ranges that arrived wait for their loads
  // within the limit only, so one arriving early does not stop the next from being asked for.
  if (in_flight_ > 0 && in_flight_ + length > target) return Ahead::kFull;
  if (held_ > 0 && held_ + length > limit_) return Ahead::kFull;
  auto range = std::make_shared<Range>();
  range->offset = offset;
  range->length = length;
  ranges_.emplace(Key{offset, length}, range);
  held_ += length;
  if (cached) {
    range->state = State::kArrived;
    return Ahead::kStarted;
  }
  in_flight_ += length;
  queue_.push_back(range);
  if (queue_.size() > threads_idle_ && threads_.size() < kMaxThreads) {
    try {
      threads_.emplace_back([this] { ReadingThread(); });
    } catch (const std::system_error&) {
      // No thread to be had (a process at its limit): the threads there are read it; without
      // any, the reader's own read will.
      if (threads_.empty()) {
        Release(*range, lock);
        return Ahead::kNotNeeded;
      }
    }
  }
  work_.notify_one();
  return Ahead::kStarted;
}

void DiskReadahead::ReadingThread() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++threads_idle_;
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    --threads_idle_;
    if (stopping_) return;
    std::shared_ptr<Range> range = std::move(queue_.front());
    queue_.pop_front();
    if (!range->held) continue;  // dropped, or taken by a read that did not wait
    range->state = State::kReading;
    std::unique_ptr<AlignedBuffer> buffer;
    if (direct_) buffer = ReuseBuffer(EnclosingAlignedRange(range->offset, range->length).length);
    lock.unlock();
    const Clock::time_point start = Clock::now();
    bool timed = false;
    const bool ok = ReadRange(*range, buffer, timed);
    const Clock::time_point end = Clock::now();
    if (ok && timed)
      estimator_.Record(range->length, std::chrono::duration<double>(end - start).count(), start,
                        end);
    lock.lock();
    if (range->held) in_flight_ -= range->length;
    range->state = ok ? State::kArrived : State::kFailed;
    if (range->held && ok) {
      range->buffer = std::move(buffer);
    } else if (buffer) {
      KeepForReuse(std::move(buffer), lock);
    }
    arrived_.notify_all();
  }
}

bool DiskReadahead::ReadRange(const Range& range, std::unique_ptr<AlignedBuffer>& buffer,
                              bool& timed) const {
  timed = true;
  if (direct_) {
    const AlignedRange aligned = EnclosingAlignedRange(range.offset, range.length);
    if (!buffer) buffer = std::make_unique<AlignedBuffer>(aligned.length);
    const int64_t got = ReadUpTo(fd_, buffer->data(), aligned.length, aligned.offset);
    return got >= static_cast<int64_t>(aligned.skip + range.length);
  }
  const std::vector<uint64_t> missing =
      view_ ? view_->MissingPages(range.offset, range.length) : std::vector<uint64_t>{};
  timed = !missing.empty();
  // Advice is never refused for a readable range, and a range it did not bring (memory short)
  // is read by the reader's own read: nothing to report here.
  const uint64_t end = range.offset + range.length;
  for (uint64_t at = range.offset; at < end; at += advice_piece_) {
    ::posix_fadvise(fd_, static_cast<off_t>(at),
                    static_cast<off_t>(std::min(advice_piece_, end - at)), POSIX_FADV_WILLNEED);
  }
  // Pages are asked for in file order, so the last missing one arrives about when the range
  // has: waiting for them times the range without copying it.
  for (const uint64_t page : missing) {
    uint8_t byte = 0;
    if (ReadUpTo(fd_, &byte, 1, page) != 1) return false;
  }
  return true;
}

DiskReadahead::Taken DiskReadahead::Take(uint64_t offset, uint64_t length) {
  std::unique_lock lock(mutex_);
  const auto it = ranges_.find({offset, length});
  if (it == ranges_.end()) return {};
  const std::shared_ptr<Range> range = it->second;
  if (!direct_) {
    const bool asked = range->state != State::kQueued;
    Release(*range, lock);
    return {asked, nullptr};
  }
  if (range->state == State::kQueued) {  // read it now, on the caller's thread
    Release(*range, lock);
    return {};
  }
  arrived_.wait(lock, [&] { return range->state != State::kReading; });
  if (!range->held || range->state == State::kFailed) {  // dropped meanwhile, or failed
    Release(*range, lock);
    return {};
  }
  std::unique_ptr<AlignedBuffer> buffer = std::move(range->buffer);
  const uint64_t skip = EnclosingAlignedRange(offset, length).skip;
  Release(*range, lock);
  return {true, HandOver(std::move(buffer), skip)};
}

std::shared_ptr<const uint8_t> DiskReadahead::ReadHere(uint64_t offset, uint64_t length) {
  const AlignedRange aligned = EnclosingAlignedRange(offset, length);
  std::unique_ptr<AlignedBuffer> buffer;
  {
    std::lock_guard lock(mutex_);
    buffer = ReuseBuffer(aligned.length);
  }
  if (!buffer) buffer = std::make_unique<AlignedBuffer>(aligned.length);
  const int64_t got = ReadUpTo(fd_, buffer->data(), aligned.length, aligned.offset);
  if (got < 0) throw ReadFailedError(path_, offset, length, static_cast<int>(-got));
  if (got < static_cast<int64_t>(aligned.skip + length)) {
    const uint64_t end = aligned.offset + static_cast<uint64_t>(got);
    throw TruncatedError(path_, offset, length, end, offset + length - std::max(end, offset));
  }
  return HandOver(std::move(buffer), aligned.skip);
}

std::shared_ptr<const uint8_t> DiskReadahead::HandOver(std::unique_ptr<AlignedBuffer> buffer,
                                                       uint64_t skip) {
  struct Holder {
    std::unique_ptr<AlignedBuffer> buffer;
    std::shared_ptr<Home> home;
    ~Holder() {
      std::lock_guard lock(home->mutex);
      if (home->owner != nullptr) home->owner->Recycle(std::move(buffer));
    }
  };
  const uint8_t* bytes = buffer->data() + skip;
  std::shared_ptr<Holder> holder(new Holder{std::move(buffer), home_});
  return std::shared_ptr<const uint8_t>(std::move(holder), bytes);
}

void DiskReadahead::Recycle(std::unique_ptr<AlignedBuffer> buffer) {
  std::unique_lock lock(mutex_);
  KeepForReuse(std::move(buffer), lock);
}

void DiskReadahead::KeepForReuse(std::unique_ptr<AlignedBuffer> buffer,
                                 std::unique_lock<std::mutex>& lock) {
  if (!stopping_ &&
      (held_ + free_bytes_ + buffer->capacity() <= limit_ || free_buffers_.size() < kAlwaysKept)) {
    free_bytes_ += buffer->capacity();
    free_buffers_.push_back(std::move(buffer));
    return;
  }
  lock.unlock();  // unmapping takes a while; nobody waits for it
  buffer.reset();
  lock.lock();
}

std::unique_ptr<AlignedBuffer> DiskReadahead::ReuseBuffer(uint64_t bytes) {
  // The smallest that fits: chunks of one file mostly need one size, compressed ones a few.
  auto best = free_buffers_.end();
  for (auto it = free_buffers_.begin(); it != free_buffers_.end(); ++it) {
    if ((*it)->capacity() >= bytes &&
        (best == free_buffers_.end() || (*it)->capacity() < (*best)->capacity())) {
      best = it;
    }
  }
  if (best == free_buffers_.end()) {
    // None fits: the free ones make room for a new one within the limit.
    free_buffers_.clear();
    free_bytes_ = 0;
    return nullptr;
  }
  std::unique_ptr<AlignedBuffer> buffer = std::move(*best);
  free_buffers_.erase(best);
  free_bytes_ -= buffer->capacity();
  return buffer;
}

void DiskReadahead::Release(Range& range, std::unique_lock<std::mutex>& lock) {
  if (!range.held) return;
  range.held = false;
  ranges_.erase({range.offset, range.length});
  held_ -= range.length;
  if (range.state == State::kQueued || range.state == State::kReading) in_flight_ -= range.length;
  if (range.state != State::kReading && range.buffer) {
    KeepForReuse(std::move(range.buffer), lock);
  }
}

void DiskReadahead::Drop(uint64_t offset, uint64_t length) {
  std::unique_lock lock(mutex_);
  const auto it = ranges_.find({offset, length});
  if (it == ranges_.end()) return;
  const std::shared_ptr<Range> range = it->second;
  Release(*range, lock);
}

void DiskReadahead::DropAll() {
  std::unique_lock lock(mutex_);
  while (!ranges_.empty()) {
    const std::shared_ptr<Range> range = ranges_.begin()->second;
    Release(*range, lock);
  }
  queue_.clear();
}

void DiskReadahead::SetLimit(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
  while (free_buffers_.size() > kAlwaysKept && held_ + free_bytes_ > limit_) {
    free_bytes_ -= free_buffers_.back()->capacity();
    free_buffers_.pop_back();
  }
}

uint64_t DiskReadahead::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_;
}

}  // namespace h5feed::io
