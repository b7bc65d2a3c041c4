// DecodeScratch (image_decoder.h).

#include "decode/image_decoder.h"

namespace h5feed::decode {

DecodeScratch::DecodeScratch() = default;
DecodeScratch::~DecodeScratch() = default;

std::unique_ptr<DecoderState>& DecodeScratch::Slot(ImageEncoding encoding) {
  const auto at = static_cast<size_t>(encoding);
  if (at >= states_.size()) states_.resize(at + 1);
  return states_[at];
}

}  // namespace h5feed::decode
