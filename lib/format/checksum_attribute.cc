#include "format/checksum_attribute.h"

#include <string_view>

#include "codec/checksum.h"
#include "format/hdf5_attributes.h"
#include "format/schema.h"
#include "h5feed/error.h"

namespace h5feed::hdf5 {

void WriteChecksumAttribute(hid_t dataset) {
  WriteAttribute(dataset, schema::kAttrChecksum, std::string_view(codec::kChecksumName));
}

void RequireKnownChecksum(hid_t dataset, const std::string& where) {
  const std::string checksum = ReadStringAttribute(dataset, schema::kAttrChecksum);
  if (checksum != codec::kChecksumName) {
    throw Error(ErrorCode::kUnsupported,
                where + " uses checksum \"" + checksum + "\"; this h5feed knows only \"" +
                    codec::kChecksumName + "\". Upgrade h5feed or convert the file again");
  }
}

}  // namespace h5feed::hdf5
