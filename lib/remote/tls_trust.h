#pragma once
// The CA certificates a TLS connection to a remote file trusts. By default the system's
// (libcurl's bundle, /etc/ssl/certs on Debian), which a server whose certificate was signed by
// a CA of its own does not pass: a MinIO or Ceph gateway, an internal CDN, a proxy that
// inspects TLS. The environment can name that CA's certificates instead, as OpenSSL (and
// Python's ssl module), the curl program and the AWS CLI read them, first found wins:
//   CURL_CA_BUNDLE, SSL_CERT_FILE, AWS_CA_BUNDLE: a PEM file of certificates;
//   SSL_CERT_DIR: a folder of them, as c_rehash or update-ca-certificates leaves it.
// A file replaces the system's bundle for every URL the process reads (as it does for these
// programs): one that holds a private CA alone trusts that CA alone. A folder is searched
// beside the system's bundle.

#include <string>

namespace h5feed::remote {

struct TlsTrust {
  std::string ca_file;   // CURLOPT_CAINFO; "" for libcurl's default
  std::string ca_dir;    // CURLOPT_CAPATH; "" for libcurl's default
  std::string variable;  // the environment variable they came from; "" for the system's
  bool system() const { return variable.empty(); }
};

// Reads the variables above (for https:// URLs only: http:// needs none). Throws
// Error(kInvalidArgument) naming the variable when it names a path that does not exist (or, for
// SSL_CERT_DIR, is not a folder), which libcurl would report only as a failed handshake.
TlsTrust TlsTrustFromEnvironment();

// What a refused certificate's message adds: what it was checked against and how to trust
// the server's CA ("checked against the system's CA certificates; ... name a PEM file of them
// in SSL_CERT_FILE ..."), or, when a variable named the certificates, that variable and that
// its file must hold the CA (setting another variable after it in the list would change
// nothing).
std::string RefusalAdvice(const TlsTrust& trust);

}  // namespace h5feed::remote
