#pragma once
// Where a file is: a local path, or a remote object (an http:// or https:// URL, a pre-signed
// object-store URL among them, or s3://bucket/key) with how to open it. A location is parsed
// once, where it enters (a command's argument, Loader::Open's path), and passed along: nothing
// downstream asks again which it is.
//
// Messages never show credentials: display() leaves out user information in a URL
// ("user:password@") and its query (a pre-signed URL's signature and key id).
//
// A value type: copy it, compare it, hand it between threads like a std::string.

#include <string>

#include "h5feed/remote_options.h"

namespace h5feed {

class Location {
 public:
  enum class Scheme { kLocal, kHttp, kHttps, kS3 };

  Location() = default;
  // `text` as given: a path, or a URL whose scheme (any case) is http, https or s3. `remote`:
  // how a remote object is opened (ignored for a path).
  explicit Location(std::string text, RemoteOptions remote = {});

  // As given, a pre-signed URL's query included: what is opened, never what is shown.
  const std::string& text() const { return text_; }
  // As messages and logs show it: a path unchanged; a URL without user information and
  // without its query ("https://host/train.h5?X-Amz-Signature=..." becomes
  // "https://host/train.h5?..."). Safe to log.
  const std::string& display() const { return display_; }
  Scheme scheme() const { return scheme_; }
  bool remote() const { return scheme_ != Scheme::kLocal; }
  const RemoteOptions& remote_options() const { return remote_; }

  // The version of the remote object (its ETag, else Last-Modified and size) that every open
  // must find, else Error(kIo) says it changed; "" for any. An index records the version it
  // read, so that chunks are never read from another version than the one it describes.
  const std::string& version() const { return version_; }
  Location AtVersion(std::string version) const;

  friend bool operator==(const Location&, const Location&) = default;

 private:
  std::string text_;
  std::string display_;
  Scheme scheme_ = Scheme::kLocal;
  RemoteOptions remote_;
  std::string version_;
};

// What to add to "PATH does not exist" when PATH looks like a URL of a scheme h5feed does
// not read ("gs://bucket/train.h5", "ftp://host/train.h5"): which schemes it reads and what
// to give instead; "" for anything else.
std::string UnreadableUrlNote(const std::string& path);

}  // namespace h5feed
