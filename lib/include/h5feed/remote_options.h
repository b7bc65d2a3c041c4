#pragma once
// How h5feed reads a file that is not on a local disk: an http:// or https:// URL (a web
// server or CDN that answers Range requests, or a pre-signed object-store URL), or an
// s3://bucket/key object. docs/remote.md describes what a remote epoch costs and how to size
// these.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "h5feed/option_names.h"

namespace h5feed {

struct RemoteOptions {
  // Connections to the server, each carrying one range request at a time (HTTP/1.1) or many
  // (HTTP/2 over TLS): how many requests are in flight at once. Requests beyond them wait
  // for a connection; connections are kept open and reused.
  int connections = 16;
  // Attempts after the first, for a request that failed in a way that may pass: the
  // connection was reset or refused, nothing came for `stall_seconds`, the body ended early,
  // the server answered 5xx or 429. They wait 0.1 s, 0.2 s, 0.4 s ... (at most 2 s, with
  // jitter) before they go out again. 403, 404 and a changed object are never retried.
  int retries = 5;
  int connect_timeout_seconds = 10;
  // A request that receives no byte for this long is abandoned (and retried): a server or
  // link that stalls never hangs a reader.
  int stall_seconds = 30;

  // The spill cache: a folder on a local disk where the bytes read from the object are kept,
  // so that later epochs (and later runs, and the other ranks of the node sharing the folder)
  // read them there. "" keeps nothing. Kept bytes are checked when read back; a replaced
  // object's are never used for the new one. At most spill_bytes are kept in the folder, the
  // object being read never evicted for itself: give it the file's size (or more) for every
  // later epoch to read locally; with less, that share of the chunks comes from the disk.
  std::string spill_dir;
  int64_t spill_bytes = int64_t{64} << 30;

  // s3://bucket/key: where requests go and how they are signed comes from the AWS
  // environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
  // AWS_ENDPOINT_URL, AWS_PROFILE, ~/.aws/credentials and ~/.aws/config; docs/remote.md).
  // These override its region and endpoint ("http://127.0.0.1:9000" for an S3-compatible
  // store, addressed path-style: ENDPOINT/BUCKET/KEY). "" keeps the environment's.
  std::string s3_region;
  std::string s3_endpoint;

  // Set: a flag of the caller's (shared, so that it lives as long as the files opened with
  // these options); once it is true, every request of those files ends with Error(kCancelled)
  // within about 0.1 s, in flight or waiting for a retry, and every later one at once, rather
  // than waiting out its stall limit and retries; an open probe still running (a Loader's, an
  // inspect's: probe/open_probe.h) is stopped too, for a local file as well. How a front end
  // makes an open interruptible (h5feed.Loader's, on Ctrl-C). Null: requests end as the options
  // above say.
  std::shared_ptr<const std::atomic<bool>> cancel;

  // How errors name these fields (option_names.h), by their path here ("spill_dir",
  // "stall_seconds"): a front end gives its own spelling ("--spill-dir", "remote['spill_dir']").
  // Empty: the C++ names ("RemoteOptions.spill_dir"); a Loader names them as
  // LoaderOptions::option_names names "remote.spill_dir". Not compared by ==.
  OptionNames option_names;

  friend bool operator==(const RemoteOptions& a, const RemoteOptions& b) {
    const auto fields = [](const RemoteOptions& o) {
      return std::tie(o.connections, o.retries, o.connect_timeout_seconds, o.stall_seconds,
                      o.spill_dir, o.spill_bytes, o.s3_region, o.s3_endpoint, o.cancel);
    };
    return fields(a) == fields(b);
  }
};

// Whether `location` names a remote file (http://, https:// or s3://) rather than a path.
bool IsRemoteLocation(const std::string& location);

// `location` as messages and logs may show it: a path unchanged; a URL without user
// information ("user:password@") and without its query, which in a pre-signed URL holds the
// signature ("https://host/train.h5?X-Amz-Signature=..." becomes "https://host/train.h5?...").
std::string DisplayLocation(const std::string& location);

}  // namespace h5feed
