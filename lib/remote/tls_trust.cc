// TlsTrustFromEnvironment and DescribeTrust (tls_trust.h).
#include "remote/tls_trust.h"

#include <sys/stat.h>

#include <cstdlib>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::remote {
namespace {

const char* Variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

}  // namespace

TlsTrust TlsTrustFromEnvironment() {
  TlsTrust trust;
  for (const char* name : {"CURL_CA_BUNDLE", "SSL_CERT_FILE", "AWS_CA_BUNDLE"}) {
    if (const char* path = Variable(name)) {
      struct stat info {};
      if (stat(path, &info) != 0 || S_ISDIR(info.st_mode)) {
        throw MakeError(ErrorCode::kInvalidArgument,
                        "{} names {}, which is not a file; give it the path of a PEM file of "
                        "the CA certificates to trust for https:// (or unset it for the "
                        "system's)",
                        name, path);
      }
      trust.ca_file = path;
      trust.variable = name;
      return trust;
    }
  }
  if (const char* path = Variable("SSL_CERT_DIR")) {
    struct stat info {};
    if (stat(path, &info) != 0 || !S_ISDIR(info.st_mode)) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "SSL_CERT_DIR names {}, which is not a folder; give it a folder of CA "
                      "certificates (as c_rehash leaves it), or SSL_CERT_FILE a PEM file of "
                      "them (or unset it for the system's)",
                      path);
    }
    trust.ca_dir = path;
    trust.variable = "SSL_CERT_DIR";
  }
  return trust;
}

std::string DescribeTrust(const TlsTrust& trust) {
  if (trust.system()) return "the system's CA certificates";
  return "the CA certificates of " + trust.variable + " (" +
         (trust.ca_file.empty() ? trust.ca_dir : trust.ca_file) + ")";
}

}  // namespace h5feed::remote
