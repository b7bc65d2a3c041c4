// Location and UnreadableUrlNote (h5feed/location.h), and h5feed::IsRemoteLocation and
// DisplayLocation (h5feed/remote_options.h).
#include "h5feed/location.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <utility>

namespace h5feed {
namespace {

bool StartsWithNoCase(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char wanted, char found) {
           return std::tolower(static_cast<unsigned char>(found)) == wanted;
         });
}

Location::Scheme SchemeOf(const std::string& text) {
  if (StartsWithNoCase(text, "http://")) return Location::Scheme::kHttp;
  if (StartsWithNoCase(text, "https://")) return Location::Scheme::kHttps;
  if (StartsWithNoCase(text, "s3://")) return Location::Scheme::kS3;
  return Location::Scheme::kLocal;
}

std::string Shown(const std::string& url) {
  std::string shown = url;
  const size_t fragment = shown.find('#');
  if (fragment != std::string::npos) shown.erase(fragment);
  const size_t query = shown.find('?');
  if (query != std::string::npos) shown.replace(query, std::string::npos, "?...");
  // user:password@ sits between "//" and the first '/' after it (the authority).
  const size_t authority = shown.find("//") + 2;
  const size_t path = std::min(shown.find('/', authority), shown.find('?', authority));
  const size_t at = shown.rfind('@', path == std::string::npos ? shown.size() : path);
  if (at != std::string::npos && at >= authority) shown.erase(authority, at + 1 - authority);
  return shown;
}

}  // namespace

Location::Location(std::string text, RemoteOptions remote)
    : text_(std::move(text)), scheme_(SchemeOf(text_)), remote_(std::move(remote)) {
  display_ = scheme_ == Scheme::kLocal ? text_ : Shown(text_);
}

Location Location::AtVersion(std::string version) const {
  Location at = *this;
  at.version_ = std::move(version);
  return at;
}

bool IsRemoteLocation(const std::string& location) { return Location(location).remote(); }

std::string DisplayLocation(const std::string& location) { return Location(location).display(); }

std::string UnreadableUrlNote(const std::string& path) {
  // A scheme is a letter, then letters, digits, '+', '-' or '.' (RFC 3986, 3.1), before "://".
  const size_t end = path.find("://");
  if (end == std::string::npos || end == 0 || Location(path).remote()) return "";
  const auto scheme_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  };
  if (!std::isalpha(static_cast<unsigned char>(path[0])) ||
      !std::all_of(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(end), scheme_char)) {
    return "";
  }
  if (StartsWithNoCase(path, "file://")) {
    return "; h5feed reads local files by their path: give " + path.substr(end + 3);
  }
  return "; h5feed reads local paths and http://, https:// and s3:// URLs, not " +
         path.substr(0, end) +
         "://: give the object's https:// URL (a pre-signed one for a private object) or, for a "
         "store with an S3-compatible endpoint, s3://BUCKET/KEY with s3_endpoint (docs/remote.md)";
}

}  // namespace h5feed
