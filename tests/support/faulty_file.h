#pragma once
// FaultyFile: a RandomAccessFile over a real one that misbehaves on demand, the way disks and
// network file systems do: a read fails with an errno (EIO), the file seems to end early (a
// short read: truncated after open), or bytes come back changed (bit rot). For the reader's
// tests (leveldb's Env and fmt's posix-mock.h are the models): they prove a fault becomes an
// h5feed::Error naming the file, the chunk and its rows, never a crash or wrong pixels.
//
// Faults are configured before the file is shared; ReadAt may then be called from many threads
// at once (the counters are atomic). Errors are worded by io_errors.h, as the POSIX file words
// them.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "io/io_errors.h"
#include "io/random_access_file.h"

namespace h5feed::testing {

class FaultyFile final : public io::RandomAccessFile {
 public:
  // Owns `base`.
  explicit FaultyFile(std::unique_ptr<io::RandomAccessFile> base)
      : owned_(std::move(base)), base_(*owned_) {}
  // Borrows `base`, which must outlive this.
  explicit FaultyFile(const io::RandomAccessFile& base) : base_(base) {}

  // ReadAt call number `n` (0 = the first call after construction) fails with `error_number`.
  void FailNthRead(int64_t n, int error_number = EIO) {
    nth_failures_.push_back({n, error_number});
  }
  // Every read that touches a byte of [begin, end) fails with `error_number`.
  void FailReadsTouching(uint64_t begin, uint64_t end, int error_number = EIO) {
    range_failures_.push_back({begin, end, error_number});
  }
  // The file seems to end at byte `end` (as if truncated after it was opened): a read reaching
  // past it comes back short, which is reported as a truncated file. size() is unchanged.
  void EndAt(uint64_t end) { end_ = end; }
  // Bytes of [begin, end) come back XORed with `mask` (0xFF: every bit flipped).
  void FlipBytes(uint64_t begin, uint64_t end, uint8_t mask = 0xFF) {
    flips_.push_back({begin, end, mask});
  }
  // Every read takes `delay` longer (a slow or congested network file system).
  void DelayEachRead(std::chrono::milliseconds delay) { delay_ = delay; }

  int64_t reads() const { return reads_.load(); }
  // Reads that failed, came back short or came back with flipped bytes.
  int64_t faults() const { return faults_.load(); }
  uint64_t bytes_read() const { return bytes_read_.load(); }

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override {
    const int64_t call = reads_.fetch_add(1);
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const uint64_t end = offset + dest.size();
    for (const NthFailure& f : nth_failures_) {
      if (f.call == call) {
        faults_.fetch_add(1);
        throw io::ReadFailedError(path(), offset, dest.size(), f.error_number);
      }
    }
    for (const RangeFailure& f : range_failures_) {
      if (offset < f.end && f.begin < end) {
        faults_.fetch_add(1);
        throw io::ReadFailedError(path(), offset, dest.size(), f.error_number);
      }
    }
    if (end > end_) {
      const uint64_t available = offset < end_ ? end_ - offset : 0;
      if (available > 0) base_.ReadAt(offset, dest.first(available));
      faults_.fetch_add(1);
      throw io::TruncatedError(path(), offset, dest.size(), offset + available,
                               dest.size() - available);
    }
    base_.ReadAt(offset, dest);
    bytes_read_.fetch_add(dest.size());
    for (const Flip& f : flips_) {
      const uint64_t from = std::max(offset, f.begin);
      const uint64_t to = std::min(end, f.end);
      if (from < to) faults_.fetch_add(1);
      for (uint64_t at = from; at < to; ++at) dest[at - offset] ^= f.mask;
    }
  }

  uint64_t size() const override { return base_.size(); }
  const std::string& path() const override { return base_.path(); }

 private:
  struct NthFailure {
    int64_t call;
    int error_number;
  };
  struct RangeFailure {
    uint64_t begin, end;
    int error_number;
  };
  struct Flip {
    uint64_t begin, end;
    uint8_t mask;
  };

  std::unique_ptr<io::RandomAccessFile> owned_;
  const io::RandomAccessFile& base_;
  std::vector<NthFailure> nth_failures_;
  std::vector<RangeFailure> range_failures_;
  uint64_t end_ = UINT64_MAX;
  std::vector<Flip> flips_;
  std::chrono::milliseconds delay_{0};
  mutable std::atomic<int64_t> reads_{0};
  mutable std::atomic<int64_t> faults_{0};
  mutable std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace h5feed::testing
