// SchemeOf and DisplayName (location.h), and h5feed::IsRemoteLocation and DisplayLocation
// (h5feed/remote_options.h).
#include "remote/location.h"

#include <algorithm>
#include <cctype>

#include "h5feed/remote_options.h"

namespace h5feed::remote {
namespace {

bool StartsWithNoCase(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char wanted, char found) {
           return std::tolower(static_cast<unsigned char>(found)) == wanted;
         });
}

}  // namespace

Scheme SchemeOf(const std::string& location) {
  if (StartsWithNoCase(location, "http://")) return Scheme::kHttp;
  if (StartsWithNoCase(location, "https://")) return Scheme::kHttps;
  if (StartsWithNoCase(location, "s3://")) return Scheme::kS3;
  return Scheme::kLocal;
}

std::string DisplayName(const std::string& location) {
  if (SchemeOf(location) == Scheme::kLocal) return location;
  std::string shown = location;
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

}  // namespace h5feed::remote

namespace h5feed {

bool IsRemoteLocation(const std::string& location) {
  return remote::SchemeOf(location) != remote::Scheme::kLocal;
}

std::string DisplayLocation(const std::string& location) { return remote::DisplayName(location); }

}  // namespace h5feed
