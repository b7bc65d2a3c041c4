// TlsTrustFromEnvironment and RefusalAdvice (tls_trust.h).
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

std::string RefusalAdvice(const TlsTrust& trust) {
  if (trust.system()) {
    return "checked against the system's CA certificates; a server whose certificate a CA of "
           "its own signed (MinIO, an internal CDN or proxy) needs that CA's certificates: name "
           "a PEM file of them in SSL_CERT_FILE (or a folder of them in SSL_CERT_DIR), or add "
           "them to the system's (update-ca-certificates); docs/remote.md";
  }
  return "checked against the CA certificates of " + trust.variable + " (" +
         (trust.ca_file.empty() ? trust.ca_dir : trust.ca_file) +
         "), the first set of CURL_CA_BUNDLE, SSL_CERT_FILE, AWS_CA_BUNDLE and SSL_CERT_DIR: "
         "put the certificate of the CA that signed the server's there, or name in " +
         trust.variable + " certificates that hold it; docs/remote.md";
}

}  // namespace h5feed::remote
