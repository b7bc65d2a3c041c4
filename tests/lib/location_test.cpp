#include <doctest/doctest.h>

#include "h5feed/location.h"
#include "h5feed/remote_options.h"

namespace h5feed {
namespace {

std::string Shown(const std::string& text) { return Location(text).display(); }

TEST_CASE("http, https and s3 URLs are remote whatever their case; paths are local") {
  CHECK(Location("http://host/a.h5").scheme() == Location::Scheme::kHttp);
  CHECK(Location("HTTPS://host/a.h5").scheme() == Location::Scheme::kHttps);
  CHECK(Location("s3://bucket/key.h5").scheme() == Location::Scheme::kS3);
  CHECK(Location("/data/train.h5").scheme() == Location::Scheme::kLocal);
  CHECK(Location("http.h5").scheme() == Location::Scheme::kLocal);
  CHECK(Location("ftp://host/a.h5").scheme() == Location::Scheme::kLocal);
  CHECK(Location("s3://bucket/key.h5").remote());
  CHECK_FALSE(Location("/data/train.h5").remote());
  CHECK(IsRemoteLocation("https://cdn.example.com/train.h5"));
  CHECK_FALSE(IsRemoteLocation("relative/train.h5"));
}

TEST_CASE("messages show a URL without its query and without user information") {
  CHECK(Shown("/data/train.h5") == "/data/train.h5");
  CHECK(Shown("https://host/train.h5") == "https://host/train.h5");
  CHECK(Shown("https://bucket.s3.amazonaws.com/train.h5?X-Amz-Credential=AKIAEXAMPLE"
              "&X-Amz-Signature=deadbeef") == "https://bucket.s3.amazonaws.com/train.h5?...");
  CHECK(Shown("http://user:secret@host:8080/a/b.h5") == "http://host:8080/a/b.h5");
  CHECK(Shown("http://user:secret@host?token=1") == "http://host?...");
  CHECK(Shown("https://host/a.h5#part") == "https://host/a.h5");
  // An '@' in the path is no user information.
  CHECK(Shown("https://host/people/@me/a.h5") == "https://host/people/@me/a.h5");
  // What is opened keeps everything.
  CHECK(Location("http://user:secret@host?token=1").text() == "http://user:secret@host?token=1");
  // The public spelling, for front ends and users' logs.
  CHECK(DisplayLocation("http://user:secret@host?token=1") == "http://host?...");
}

TEST_CASE("a location at a version is the same location pinned to it") {
  RemoteOptions options;
  options.retries = 2;
  const Location any("https://host/a.h5", options);
  const Location pinned = any.AtVersion("\"etag-1\"");
  CHECK(any.version().empty());
  CHECK(pinned.version() == "\"etag-1\"");
  CHECK(pinned.display() == any.display());
  CHECK(pinned.remote_options() == options);
  CHECK_FALSE(pinned == any);
}

TEST_CASE("a path that is a URL of a scheme h5feed does not read is told so, not only missing") {
  CHECK(UnreadableUrlNote("gs://bucket/train.h5").find("not gs://") != std::string::npos);
  CHECK(UnreadableUrlNote("gs://bucket/train.h5").find("s3://BUCKET/KEY") != std::string::npos);
  CHECK(UnreadableUrlNote("ftp://host/train.h5").find("not ftp://") != std::string::npos);
  CHECK(UnreadableUrlNote("az+blob://c/train.h5").find("not az+blob://") != std::string::npos);
  CHECK(UnreadableUrlNote("file:///data/train.h5") ==
        "; h5feed reads local files by their path: give /data/train.h5");
  // Paths, and the schemes it reads, get nothing.
  CHECK(UnreadableUrlNote("/data/train.h5").empty());
  CHECK(UnreadableUrlNote("data/a://b.h5").empty());
  CHECK(UnreadableUrlNote("://host/a.h5").empty());
  CHECK(UnreadableUrlNote("1x://host/a.h5").empty());
  CHECK(UnreadableUrlNote("https://host/a.h5").empty());
  CHECK(UnreadableUrlNote("S3://bucket/a.h5").empty());
}

}  // namespace
}  // namespace h5feed
