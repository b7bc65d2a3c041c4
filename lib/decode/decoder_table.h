#pragma once
// The one table from a stored image's encoding (h5feed/image_encoding.h, the value of
// /image_encodings) to its decoder (image_decoder.h). Adding an encoding adds its row here
// (decoder_table.cc) and nothing above lib/decode changes.

#include <span>
#include <string>

#include "decode/image_decoder.h"
#include "h5feed/image_encoding.h"

namespace h5feed::decode {

// The decoder of `encoding`; nullptr for a value no decoder has. Thread-safe.
const ImageDecoder* FindDecoder(ImageEncoding encoding) noexcept;

// The decoder of `encoding`. Throws Error(kCorrupt) naming the value and the known ones when no
// decoder has it (a damaged table, or a file of a newer h5feed). Thread-safe.
const ImageDecoder& DecoderFor(ImageEncoding encoding);

// Every decoder, in the order of their encodings' values.
std::span<const ImageDecoder* const> AllDecoders();

// The encodings h5feed decodes, for messages: "0 (raw pixels), 1 (JPEG)".
std::string KnownEncodings();

}  // namespace h5feed::decode
