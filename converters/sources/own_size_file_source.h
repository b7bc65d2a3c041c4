#pragma once
// Reads the images of an h5feed file of images at their own size (format version 2, layout
// "flat": docs/format.md, "Images at their own size") back at their stored sizes, so that they
// can be written again with another encoding or chunk size: `h5feed bench sweep` makes its file
// variants of such a file this way, as there is no source folder to convert again.
//
// Each image is delivered as its pixels at its stored height, width and channels: a raw image
// copied, a JPEG decoded whole at full scale (decode/jpeg_region_decoder.h, PIL's settings).
// Writing a decoded JPEG as JPEG again is a second generation of lossy compression: its pixels
// differ a little more from the original photos than the input's did. Labels and classes are
// the file's (none when it has none), and so are its fields, read whole at open and checked
// (index/field_values.h); each sample's SampleInfo::source is "images[n]" (the input's /sources are
// not copied). Nothing is resized, and the source's max_side() is 0: the images' largest side then
// bounds a chunk's largest image, not the input's cap (a cap of 512 would raise JPEG chunks to
// TurboJPEG's bound for 512 x 512, about 0.8 MB, for images of 80 x 60).
//
// Thread-safety: Read() may run on many threads. Each thread decodes the chunk holding
// the image it reads into a buffer of its own and keeps it for the next read, so reading rows in
// order (as a conversion of a source that prefers_sequential_reads does) decompresses each
// chunk once per thread that reads it.

#include <memory>
#include <string>

#include "sample_source.h"

namespace h5feed::converters {

// Throws Error(kInvalidArgument) when `path` is an h5feed file of one image size (version 1),
// or not an h5feed file, and what opening its index throws (kNotFound, kCorrupt, kUnsupported).
std::unique_ptr<SampleSource> OpenOwnSizeFile(const std::string& path);

}  // namespace h5feed::converters
