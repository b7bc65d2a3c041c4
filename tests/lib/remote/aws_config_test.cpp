#include "remote/aws_config.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/temp_folder.h"

namespace h5feed::remote {
namespace {

using testing::TempFolder;

// Sets the AWS variables of a test (and HOME), clearing the others; restores them after.
class AwsEnvironment {
 public:
  explicit AwsEnvironment(const std::string& home) {
    for (const char* name : kNames) {
      const char* value = getenv(name);
      saved_.push_back(value == nullptr ? nullptr : new std::string(value));
      unsetenv(name);
    }
    setenv("HOME", home.c_str(), 1);
  }
  ~AwsEnvironment() {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i] != nullptr) {
        setenv(kNames[i], saved_[i]->c_str(), 1);
        delete saved_[i];
      } else {
        unsetenv(kNames[i]);
      }
    }
  }
  void Set(const char* name, const std::string& value) { setenv(name, value.c_str(), 1); }

 private:
  static constexpr const char* kNames[] = {
      "HOME",        "AWS_ACCESS_KEY_ID",  "AWS_SECRET_ACCESS_KEY",      "AWS_SESSION_TOKEN",
      "AWS_REGION",  "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",           "AWS_ENDPOINT_URL_S3",
      "AWS_PROFILE", "AWS_CONFIG_FILE",    "AWS_SHARED_CREDENTIALS_FILE"};
  std::vector<std::string*> saved_;
};

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST_CASE("without credentials anywhere, requests go unsigned to AWS in us-east-1") {
  TempFolder home;
  AwsEnvironment environment(home.path());
  const AwsSettings settings = LoadAwsSettings();
  CHECK(settings.access_key_id.empty());
  CHECK(settings.credentials_from.empty());
  CHECK(settings.region == "us-east-1");
  CHECK(settings.endpoint.empty());
}

TEST_CASE("the environment's credentials, region and endpoint come first") {
  TempFolder home;
  AwsEnvironment environment(home.path());
  Write(home / ".aws/credentials",
        "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  Write(home / ".aws/config", "[default]\nregion = eu-west-3\n");
  environment.Set("AWS_ACCESS_KEY_ID", "ENVKEY");
  environment.Set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
  environment.Set("AWS_SESSION_TOKEN", "TOKEN");
  environment.Set("AWS_DEFAULT_REGION", "ap-south-1");
  environment.Set("AWS_ENDPOINT_URL", "http://generic:9000");
  environment.Set("AWS_ENDPOINT_URL_S3", "http://s3only:9000");
  const AwsSettings settings = LoadAwsSettings();
  CHECK(settings.access_key_id == "ENVKEY");
  CHECK(settings.secret_access_key == "ENVSECRET");
  CHECK(settings.session_token == "TOKEN");
  CHECK(settings.region == "ap-south-1");
  CHECK(settings.endpoint == "http://s3only:9000");
  environment.Set("AWS_REGION", "sa-east-1");
  CHECK(LoadAwsSettings().region == "sa-east-1");
}

TEST_CASE("the profile's credentials, region and endpoint come from the ~/.aws files") {
  TempFolder home;
  AwsEnvironment environment(home.path());
  Write(home / ".aws/credentials",
        "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = DEFAULTSECRET\n"
        "# a comment\n[training]\naws_access_key_id=TRAINKEY\naws_secret_access_key=TRAINSECRET\n"
        "aws_session_token = TRAINTOKEN\n");
  Write(home / ".aws/config",
        "[default]\nregion = us-west-2\n[profile training]\nregion = eu-north-1\n"
        "endpoint_url = http://store.local:9000\n");
  AwsSettings settings = LoadAwsSettings();
  CHECK(settings.access_key_id == "DEFAULTKEY");
  CHECK(settings.region == "us-west-2");
  CHECK(settings.credentials_from == home / ".aws/credentials [default]");
  environment.Set("AWS_PROFILE", "training");
  settings = LoadAwsSettings();
  CHECK(settings.access_key_id == "TRAINKEY");
  CHECK(settings.secret_access_key == "TRAINSECRET");
  CHECK(settings.session_token == "TRAINTOKEN");
  CHECK(settings.region == "eu-north-1");
  CHECK(settings.endpoint == "http://store.local:9000");
  // Files named by the environment instead of ~/.aws.
  Write(home / "elsewhere/creds", "[training]\naws_access_key_id=OTHER\naws_secret_access_key=S\n");
  environment.Set("AWS_SHARED_CREDENTIALS_FILE", home / "elsewhere/creds");
  CHECK(LoadAwsSettings().access_key_id == "OTHER");
}

TEST_CASE("an AWS_PROFILE that neither file has is refused by name") {
  TempFolder home;
  AwsEnvironment environment(home.path());
  Write(home / ".aws/config", "[default]\nregion = us-west-2\n[profile training]\n");
  Write(home / ".aws/credentials", "[backup]\naws_access_key_id=K\naws_secret_access_key=S\n");
  environment.Set("AWS_PROFILE", "trainnig");
  try {
    LoadAwsSettings();
    FAIL("a missing profile was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(e.what()).find("AWS_PROFILE is trainnig, but neither") != std::string::npos);
    CHECK(std::string(e.what()).find("[profile trainnig]") != std::string::npos);
  }
  // A profile of either file is found; "default" needs neither.
  environment.Set("AWS_PROFILE", "training");
  CHECK(LoadAwsSettings().access_key_id.empty());
  environment.Set("AWS_PROFILE", "backup");
  CHECK(LoadAwsSettings().access_key_id == "K");
  environment.Set("AWS_PROFILE", "default");
  std::filesystem::remove_all(home / ".aws");
  CHECK(LoadAwsSettings().region == "us-east-1");
}

TEST_CASE("half a key pair is refused, not sent unsigned") {
  TempFolder home;
  AwsEnvironment environment(home.path());
  Write(home / ".aws/credentials",
        "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n"
        "[half]\naws_access_key_id = ONLYKEY\n");
  environment.Set("AWS_ACCESS_KEY_ID", "ENVKEY");
  CHECK_THROWS_WITH_AS(LoadAwsSettings(),
                       doctest::Contains("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is "
                                         "not"),
                       Error);
  unsetenv("AWS_ACCESS_KEY_ID");
  environment.Set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
  CHECK_THROWS_WITH_AS(LoadAwsSettings(),
                       doctest::Contains("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is "
                                         "not"),
                       Error);
  unsetenv("AWS_SECRET_ACCESS_KEY");
  environment.Set("AWS_PROFILE", "half");
  CHECK_THROWS_WITH_AS(LoadAwsSettings(),
                       doctest::Contains("[half]: aws_access_key_id is set but "
                                         "aws_secret_access_key is not"),
                       Error);
}

TEST_CASE("INI values are found by section and key, spaces around them ignored") {
  const std::string text = "[a]\nkey = 1\n[ b ]\n key=2 \n; key = 3\n";
  CHECK(IniValue(text, "a", "key") == "1");
  CHECK(IniValue(text, "b", "key") == "2");
  CHECK(IniValue(text, "c", "key").empty());
  CHECK(IniValue(text, "a", "other").empty());
  CHECK(IniHasSection(text, "b"));
  CHECK_FALSE(IniHasSection(text, "c"));
}

}  // namespace
}  // namespace h5feed::remote
