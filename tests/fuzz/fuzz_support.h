#pragma once
// What every fuzz target shares: reading structured choices off the front of the fuzzer's
// bytes, and the one rule all targets check: hostile input may only ever end in an
// h5feed::Error that says what is wrong (never a crash, a hang, another exception type, a
// wrong round trip, or an Error(kInternal), which is h5feed's word for "a bug in h5feed").
//
// Each target defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer
// (H5FEED_BUILD_FUZZERS, clang) or with replay_main.cc, which feeds it the saved corpus and
// regression inputs in every ordinary test run.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "h5feed/error.h"

namespace h5feed::fuzzing {

// Takes fixed-size choices from the front of the input; the rest is the payload. Reading past
// the end gives zeros, so every input, however short, is a valid one.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() | (Byte() << 8)); }
  std::span<const uint8_t> Rest() const {
    return at_ < size_ ? std::span<const uint8_t>(data_ + at_, size_ - at_)
                       : std::span<const uint8_t>();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// A finding: prints why and aborts, which libFuzzer (and the replay test) report with the input.
[[noreturn]] inline void Finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

// Runs `body`; an h5feed::Error is the expected end of a hostile input unless it is kInternal.
// Anything else escapes and is a finding. With H5FEED_FUZZ_VERBOSE set, every error is
// printed: how to see which path a corpus input really reaches.
template <typename Body>
void ExpectCleanErrorsOnly(Body&& body) {
  try {
    body();
  } catch (const Error& error) {
    static const bool verbose = std::getenv("H5FEED_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "rejected: %s\n", error.what());
    if (error.code() == ErrorCode::kInternal) {
      std::fprintf(stderr, "fuzz finding: internal error: %s\n", error.what());
      std::abort();
    }
  }
}

}  // namespace h5feed::fuzzing
