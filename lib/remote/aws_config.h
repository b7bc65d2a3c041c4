#pragma once
// Where s3:// requests go and who signs them, found the way the AWS CLI and SDKs find it:
//   credentials  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else the
//                profile's aws_access_key_id, aws_secret_access_key, aws_session_token in the
//                shared credentials file (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials);
//                none at all: requests go unsigned (a public bucket)
//   region       AWS_REGION, else AWS_DEFAULT_REGION, else the profile's region in the config
//                file (AWS_CONFIG_FILE, else ~/.aws/config), else us-east-1
//   endpoint     AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else the profile's endpoint_url;
//                none: AWS itself
// The profile is AWS_PROFILE's, else "default" ([default] or [profile NAME] in the config file,
// [NAME] in the credentials file). Instance roles and SSO are not looked up: export their
// temporary credentials (aws configure export-credentials) for h5feed to find them.
//
// Thread-safety: reads the environment and files; no state.

#include <string>

namespace h5feed::remote {

struct AwsSettings {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string region;
  std::string endpoint;          // "" = AWS
  std::string credentials_from;  // where the credentials were found, for messages ("" = none)
};

// Throws Error(kInvalidArgument) for settings the AWS CLI refuses too: an AWS_PROFILE that
// neither file has (other than "default"), and half a key pair (a key id without its secret,
// or the reverse) in the environment or in the profile.
AwsSettings LoadAwsSettings();

// Whether the INI text `text` has a section `section`.
bool IniHasSection(const std::string& text, const std::string& section);

// The value of `key` in section `section` of the INI text `text` ("" when absent).
std::string IniValue(const std::string& text, const std::string& section, const std::string& key);

}  // namespace h5feed::remote
