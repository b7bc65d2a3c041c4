#pragma once
// Whether one image of a flat file (version 2, images at their own size) may be stored as its
// record says, under the file's layout (docs/format.md, "Encodings"): the rules the Writer
// holds every StoredImage to before it packs it. Stateless; thread-safe.

#include <cstdint>

#include "h5feed/writer.h"

namespace h5feed::format {

// Throws Error(kInvalidArgument) naming the image's shape when `image` breaks a rule of
// `layout`: a shape not positive or not 1 or 3 channels, a longer side above max_side, no
// bytes or more than `chunk_bytes`, an encoding other than the one the layout's encoding
// (and smart_threshold) asks for, or a raw image whose bytes are not H * W * C.
void CheckStoredImage(const StoredImage& image, const FlatLayout& layout, int64_t chunk_bytes);

}  // namespace h5feed::format
