#pragma once
// What a remote location names, and how messages show it. A location is an http:// or
// https:// URL (a pre-signed object-store URL among them) or s3://bucket/key; anything else is
// a local path.
//
// Messages never show credentials: user information in a URL ("user:password@") and the
// query (a pre-signed URL's signature and key id) are left out of DisplayName.

#include <string>

namespace h5feed::remote {

enum class Scheme { kLocal, kHttp, kHttps, kS3 };

// The scheme `location` starts with (case-insensitive); kLocal for a path.
Scheme SchemeOf(const std::string& location);

// `location` as messages show it: a path unchanged; a URL without user information and
// without its query ("https://host/train.h5?X-Amz-Signature=..." becomes
// "https://host/train.h5?..."). Safe to log.
std::string DisplayName(const std::string& location);

}  // namespace h5feed::remote
