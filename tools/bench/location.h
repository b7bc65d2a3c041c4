#pragma once
// The file a command reads, as its command line names it: a local path, or a remote file's
// URL (http://, https://, s3://; remote/location.h says which is which). A command parses it
// once, where it starts (CLI11 constructs it from FILE), and passes the value along, so no
// later step asks again whether it is a URL.
//
// A plain value: copyable, and safe to read from many threads at once.

#include <string>
#include <utility>

#include "remote/location.h"

namespace h5feed::bench {

class Location {
 public:
  Location() = default;
  // Never throws: anything that is not a URL of a scheme h5feed reads is a local path.
  explicit Location(std::string text)
      : text_(std::move(text)), scheme_(remote::SchemeOf(text_)) {}

  // As given (a pre-signed URL's query included): what is opened.
  const std::string& text() const { return text_; }
  remote::Scheme scheme() const { return scheme_; }
  bool remote() const { return scheme_ != remote::Scheme::kLocal; }
  // As messages and reports may show it: without a URL's user information and query.
  std::string display() const { return remote::DisplayName(text_); }

 private:
  std::string text_;
  remote::Scheme scheme_ = remote::Scheme::kLocal;
};

}  // namespace h5feed::bench
