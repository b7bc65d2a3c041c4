// ResolveS3 (s3_location.h).
#include "remote/s3_location.h"

#include <cctype>
#include <cstdio>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::remote {
namespace {

// The SHA-256 of an empty body: what a GET signs as its payload (S3 requires the header).
constexpr char kEmptyPayloadSha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// RFC 3986 percent-encoding of a key's path, '/' kept (what SigV4 signs for S3).
std::string EncodeKey(const std::string& key) {
  std::string encoded;
  for (const unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      encoded += static_cast<char>(c);
    } else {
      char escape[4];
      std::snprintf(escape, sizeof(escape), "%%%02X", c);
      encoded += escape;
    }
  }
  return encoded;
}

// A bucket name that can be a host name label (no dots: TLS certificates cover one level).
bool VirtualHostable(const std::string& bucket) {
  for (const char c : bucket) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  return !bucket.empty();
}

}  // namespace

HttpTarget ResolveS3(const std::string& location, const RemoteOptions& options,
                     const AwsSettings& settings) {
  const std::string rest = location.substr(5);  // after "s3://"
  const size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size()) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} names no object: give s3://BUCKET/KEY",
                    location);
  }
  const std::string bucket = rest.substr(0, slash);
  const std::string key = EncodeKey(rest.substr(slash + 1));
  const std::string region = options.s3_region.empty() ? settings.region : options.s3_region;
  std::string endpoint = options.s3_endpoint.empty() ? settings.endpoint : options.s3_endpoint;
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();

  HttpTarget target;
  target.display = location;
  if (!endpoint.empty()) {
    target.url = endpoint + "/" + bucket + "/" + key;
  } else if (VirtualHostable(bucket)) {
    target.url = "https://" + bucket + ".s3." + region + ".amazonaws.com/" + key;
  } else {
    target.url = "https://s3." + region + ".amazonaws.com/" + bucket + "/" + key;
  }
  if (!settings.access_key_id.empty()) {
    target.auth.aws_sigv4 = "aws:amz:" + region + ":s3";
    target.auth.user_password = settings.access_key_id + ":" + settings.secret_access_key;
    target.auth.headers.push_back(std::string("x-amz-content-sha256: ") + kEmptyPayloadSha256);
    if (!settings.session_token.empty()) {
      target.auth.headers.push_back("x-amz-security-token: " + settings.session_token);
    }
  }
  return target;
}

}  // namespace h5feed::remote
