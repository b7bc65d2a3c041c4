// EncodingCountsValue (h5feed/encoding_counts.h): the counts named by the decoder table.

#include "h5feed/encoding_counts.h"

#include <string>

#include "decode/decoder_table.h"

namespace h5feed {

ReportValue EncodingCountsValue(const EncodingCounts& counts) {
  ReportValue::Object object;
  for (const decode::ImageDecoder* decoder : decode::AllDecoders()) {
    object.emplace_back(std::string(decoder->key()), counts.of(decoder->encoding()));
  }
  return object;
}

}  // namespace h5feed
