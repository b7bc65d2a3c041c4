#include "remote/s3_location.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::remote {
namespace {

AwsSettings Signed() {
  AwsSettings settings;
  settings.access_key_id = "KEY";
  settings.secret_access_key = "SECRET";
  settings.region = "eu-west-1";
  return settings;
}

TEST_CASE("on AWS a bucket is addressed by its host name, or by path when it has dots") {
  const HttpTarget target = ResolveS3("s3://my-bucket/data/train.h5", RemoteOptions{}, Signed());
  CHECK(target.url == "https://my-bucket.s3.eu-west-1.amazonaws.com/data/train.h5");
  CHECK(target.display == "s3://my-bucket/data/train.h5");
  CHECK(ResolveS3("s3://my.bucket/a.h5", RemoteOptions{}, Signed()).url ==
        "https://s3.eu-west-1.amazonaws.com/my.bucket/a.h5");
}

TEST_CASE("another endpoint is addressed by path; options override region and endpoint") {
  AwsSettings settings = Signed();
  settings.endpoint = "http://127.0.0.1:9000/";
  CHECK(ResolveS3("s3://bucket/k.h5", RemoteOptions{}, settings).url ==
        "http://127.0.0.1:9000/bucket/k.h5");
  RemoteOptions options;
  options.s3_endpoint = "https://store.example";
  options.s3_region = "auto";
  const HttpTarget target = ResolveS3("s3://bucket/k.h5", options, settings);
  CHECK(target.url == "https://store.example/bucket/k.h5");
  CHECK(target.auth.aws_sigv4 == "aws:amz:auto:s3");
}

TEST_CASE("requests are signed with SigV4 and the session token when credentials exist") {
  AwsSettings settings = Signed();
  settings.session_token = "TOKEN";
  const HttpTarget target = ResolveS3("s3://bucket/k.h5", RemoteOptions{}, settings);
  CHECK(target.auth.aws_sigv4 == "aws:amz:eu-west-1:s3");
  CHECK(target.auth.user_password == "KEY:SECRET");
  const auto& headers = target.auth.headers;
  CHECK(std::count(headers.begin(), headers.end(), "x-amz-security-token: TOKEN") == 1);
  CHECK(std::any_of(headers.begin(), headers.end(), [](const std::string& h) {
    return h.rfind("x-amz-content-sha256: e3b0c442", 0) == 0;
  }));
  CHECK(ResolveS3("s3://bucket/k.h5", RemoteOptions{}, AwsSettings{"", "", "", "us-east-1", "", ""})
            .auth.aws_sigv4.empty());  // no credentials: unsigned
}

TEST_CASE("keys are percent-encoded as SigV4 signs them, slashes kept") {
  CHECK(ResolveS3("s3://b/my data/ä+1.h5", RemoteOptions{}, Signed()).url ==
        "https://b.s3.eu-west-1.amazonaws.com/my%20data/%C3%A4%2B1.h5");
}

TEST_CASE("a location without a bucket or a key is refused") {
  for (const char* bad : {"s3://bucket", "s3://bucket/", "s3:///key.h5"}) {
    CAPTURE(bad);
    CHECK(testing::CodeOf([&] { ResolveS3(bad, RemoteOptions{}, Signed()); }) ==
          ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace h5feed::remote
