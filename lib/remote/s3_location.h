#pragma once
// An s3://bucket/key location as the HTTP request that reads it: the URL (virtual-hosted on
// AWS, https://BUCKET.s3.REGION.amazonaws.com/KEY, or path-style on another endpoint,
// ENDPOINT/BUCKET/KEY, as S3-compatible stores serve) and its AWS Signature Version 4,
// computed by libcurl (CURLOPT_AWS_SIGV4) with the credentials aws_config.h finds.
//
// Thread-safety: no state.

#include <string>

#include "h5feed/remote_options.h"
#include "remote/aws_config.h"
#include "remote/http_file.h"

namespace h5feed::remote {

// `settings`: the AWS environment (LoadAwsSettings); RemoteOptions::s3_region and s3_endpoint
// override its region and endpoint. Throws Error(kInvalidArgument) for a location without a
// bucket or a key.
HttpTarget ResolveS3(const std::string& location, const RemoteOptions& options,
                     const AwsSettings& settings);

}  // namespace h5feed::remote
