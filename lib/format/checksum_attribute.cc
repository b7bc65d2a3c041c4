#include "format/checksum_attribute.h"

#include <string_view>

#include "codec/checksum.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "make_error.h"

namespace h5feed::format {

void WriteChecksumAttribute(hid_t dataset) {
  hdf5::WriteAttribute(dataset, schema::kAttrChecksum, std::string_view(codec::kChecksumName));
}

void RequireKnownChecksum(hid_t dataset, const std::string& where) {
  const std::string checksum = hdf5::ReadStringAttribute(dataset, schema::kAttrChecksum);
  if (checksum != codec::kChecksumName) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} uses checksum \"{}\"; this h5feed knows only \"{}\". Upgrade h5feed or convert the "
        "file again",
        where, checksum, codec::kChecksumName);
  }
}

}  // namespace h5feed::format
