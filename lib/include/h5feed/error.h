#pragma once
// The one error type of h5feed. Every failure the library reports is an h5feed::Error: a code
// a program can branch on, and a message a person can act on, saying what failed, where (file,
// dataset, chunk, image path) and what to do.

#include <stdexcept>
#include <string>
#include <string_view>

namespace h5feed {

enum class ErrorCode {
  kInvalidArgument,  // an option or argument is wrong; nothing was done
  kNotFound,         // a file, dataset or folder that was asked for does not exist
  kAlreadyExists,    // an output exists and replacing it was not asked for
  kIo,               // the operating system or HDF5 failed to read or write
  kNoSpace,          // the file system is full (or refused to grow the file)
  kCorrupt,          // data is damaged: a broken image, a checksum mismatch, a truncated file
  kUnsupported,      // well-formed input h5feed cannot handle (a dtype, a rank, a filter)
  kCancelled,        // stopped on request (Ctrl-C, a cancel flag)
  kCuda,             // the CUDA runtime reported a failure
  kInternal,         // a bug in h5feed: please report it
};

// A short name for the code ("invalid argument", "corrupt data", "I/O error", ...): the word
// the Python module's h5feed.ErrorCode values carry.
std::string_view ToString(ErrorCode code) noexcept;
// The inverse of ToString, in any case. Throws Error(kInvalidArgument) listing every name.
ErrorCode ParseErrorCode(std::string_view text);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

  // Error(kNotFound) that says an input itself does not exist: a local file that is not there,
  // or a URL whose server answers 404 or 410 (found or not only when it is read).
  static Error MissingInput(const std::string& message) {
    Error error(ErrorCode::kNotFound, message);
    error.missing_input_ = true;
    return error;
  }
  // Whether this is a MissingInput error, not kNotFound of something an input that exists lacks
  // (a dataset, an attribute, a field): the command line exits 2 for it, as for a wrong path,
  // whether it was found before the work or while reading; 1 for the other.
  bool missing_input() const noexcept { return missing_input_; }

  // This error with another message (a caller saying where it happened), code and
  // missing_input() kept.
  Error Reworded(const std::string& message) const {
    Error error(code_, message);
    error.missing_input_ = missing_input_;
    return error;
  }

 private:
  ErrorCode code_;
  bool missing_input_ = false;
};

}  // namespace h5feed
