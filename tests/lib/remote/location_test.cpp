#include <doctest/doctest.h>

#include "h5feed/remote_options.h"
#include "remote/location.h"

namespace h5feed::remote {
namespace {

TEST_CASE("http, https and s3 URLs are remote whatever their case; paths are local") {
  CHECK(SchemeOf("http://host/a.h5") == Scheme::kHttp);
  CHECK(SchemeOf("HTTPS://host/a.h5") == Scheme::kHttps);
  CHECK(SchemeOf("s3://bucket/key.h5") == Scheme::kS3);
  CHECK(SchemeOf("/data/train.h5") == Scheme::kLocal);
  CHECK(SchemeOf("http.h5") == Scheme::kLocal);
  CHECK(SchemeOf("ftp://host/a.h5") == Scheme::kLocal);
  CHECK(IsRemoteLocation("https://cdn.example.com/train.h5"));
  CHECK_FALSE(IsRemoteLocation("relative/train.h5"));
}

TEST_CASE("messages show a URL without its query and without user information") {
  CHECK(DisplayName("/data/train.h5") == "/data/train.h5");
  CHECK(DisplayName("https://host/train.h5") == "https://host/train.h5");
  CHECK(DisplayName("https://bucket.s3.amazonaws.com/train.h5?X-Amz-Credential=AKIAEXAMPLE"
                    "&X-Amz-Signature=deadbeef") == "https://bucket.s3.amazonaws.com/train.h5?...");
  CHECK(DisplayName("http://user:secret@host:8080/a/b.h5") == "http://host:8080/a/b.h5");
  CHECK(DisplayName("http://user:secret@host?token=1") == "http://host?...");
  CHECK(DisplayName("https://host/a.h5#part") == "https://host/a.h5");
  // An '@' in the path is no user information.
  CHECK(DisplayName("https://host/people/@me/a.h5") == "https://host/people/@me/a.h5");
  // The public spelling, for front ends and users' logs.
  CHECK(h5feed::DisplayLocation("http://user:secret@host?token=1") == "http://host?...");
}

}  // namespace
}  // namespace h5feed::remote
