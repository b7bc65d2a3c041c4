// Location (h5feed/location.h), and h5feed::IsRemoteLocation and DisplayLocation
// (h5feed/remote_options.h).
#include "h5feed/location.h"

#include <algorithm>
#include <cctype>
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

}  // namespace h5feed
