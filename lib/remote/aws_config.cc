// LoadAwsSettings (aws_config.h).
#include "remote/aws_config.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "make_error.h"

namespace h5feed::remote {
namespace {

std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

std::string Trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string AwsFile(const char* variable, const char* name) {
  const std::string given = Environment(variable);
  if (!given.empty()) return given;
  const std::string home = Environment("HOME");
  return home.empty() ? "" : home + "/.aws/" + name;
}

// Half a key pair would go out unsigned, and the server's "access denied" would not say why.
void RequireBothOrNeither(const std::string& key_id, const std::string& secret,
                          const std::string& key_id_name, const std::string& secret_name,
                          const std::string& where) {
  if (key_id.empty() == secret.empty()) return;
  throw MakeError(ErrorCode::kInvalidArgument,
                  "{}{} is set but {} is not; set both (with AWS_SESSION_TOKEN for temporary "
                  "credentials), or neither for a public bucket (docs/remote.md)",
                  where, key_id.empty() ? secret_name : key_id_name,
                  key_id.empty() ? key_id_name : secret_name);
}

}  // namespace

bool IniHasSection(const std::string& text, const std::string& section) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line = Trim(line);
    if (line.size() >= 2 && line.front() == '[' && line.back() == ']' &&
        Trim(line.substr(1, line.size() - 2)) == section) {
      return true;
    }
  }
  return false;
}

std::string IniValue(const std::string& text, const std::string& section, const std::string& key) {
  std::istringstream lines(text);
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      inside = Trim(line.substr(1, line.size() - 2)) == section;
      continue;
    }
    const size_t equals = line.find('=');
    if (inside && equals != std::string::npos && Trim(line.substr(0, equals)) == key) {
      return Trim(line.substr(equals + 1));
    }
  }
  return "";
}

AwsSettings LoadAwsSettings() {
  AwsSettings settings;
  std::string profile = Environment("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  const std::string config_path = AwsFile("AWS_CONFIG_FILE", "config");
  const std::string config = config_path.empty() ? "" : ReadFile(config_path);
  const std::string config_section = profile == "default" ? "default" : "profile " + profile;

  const std::string credentials_path = AwsFile("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string credentials = credentials_path.empty() ? "" : ReadFile(credentials_path);
  // As the AWS CLI does, a profile asked for by name must exist: a misspelt one would
  // otherwise send unsigned requests to AWS's default region, and the error would be the
  // server's (access denied, or a host that does not resolve), not the name.
  if (profile != "default" && !IniHasSection(config, config_section) &&
      !IniHasSection(credentials, profile)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "AWS_PROFILE is {}, but neither {} ([{}]) nor {} ([{}]) has that profile; "
                    "check its name (aws configure list-profiles)",
                    profile, config_path.empty() ? "~/.aws/config" : config_path, config_section,
                    credentials_path.empty() ? "~/.aws/credentials" : credentials_path, profile);
  }

  settings.access_key_id = Environment("AWS_ACCESS_KEY_ID");
  settings.secret_access_key = Environment("AWS_SECRET_ACCESS_KEY");
  settings.session_token = Environment("AWS_SESSION_TOKEN");
  RequireBothOrNeither(settings.access_key_id, settings.secret_access_key, "AWS_ACCESS_KEY_ID",
                       "AWS_SECRET_ACCESS_KEY", "");
  if (!settings.access_key_id.empty()) {
    settings.credentials_from = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";
  } else {
    settings.access_key_id = IniValue(credentials, profile, "aws_access_key_id");
    settings.secret_access_key = IniValue(credentials, profile, "aws_secret_access_key");
    settings.session_token = IniValue(credentials, profile, "aws_session_token");
    RequireBothOrNeither(settings.access_key_id, settings.secret_access_key, "aws_access_key_id",
                         "aws_secret_access_key", credentials_path + " [" + profile + "]: ");
    if (!settings.access_key_id.empty()) {
      settings.credentials_from = credentials_path + " [" + profile + "]";
    } else {
      settings = AwsSettings{};  // unsigned
    }
  }
  settings.region = Environment("AWS_REGION");
  if (settings.region.empty()) settings.region = Environment("AWS_DEFAULT_REGION");
  if (settings.region.empty()) settings.region = IniValue(config, config_section, "region");
  if (settings.region.empty()) settings.region = "us-east-1";
  settings.endpoint = Environment("AWS_ENDPOINT_URL_S3");
  if (settings.endpoint.empty()) settings.endpoint = Environment("AWS_ENDPOINT_URL");
  if (settings.endpoint.empty())
    settings.endpoint = IniValue(config, config_section, "endpoint_url");
  return settings;
}

}  // namespace h5feed::remote
