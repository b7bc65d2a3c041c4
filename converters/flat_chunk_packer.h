#pragma once
// The layout of a version 2 "flat" file (docs/format.md, "Images at their own size"): each
// image at its own size, stored raw or as a JPEG file as the encoding asks, packed whole into
// chunks of C bytes in stored order, greedily: an image goes into the current chunk if it fits,
// else that chunk is complete and the next starts with it.
//
// C is raised to the largest image that may be stored (the source's shape() raw, or the worst
// JPEG file of the cap's square), so every image fits; a group holds as many samples as C holds
// of that largest, so its stored bytes fit in C and packing it completes at most one chunk.

#include <memory>

#include "chunk_packer.h"
#include "convert_options.h"
#include "sample_source.h"

namespace h5feed::converters {

// Its Read decodes each sample at its own size and JPEG-encodes it when the encoding asks; its
// report gives the largest shape, C, the cap, the encoding, and the images' bytes (pixels and
// as stored) and how many are stored in each encoding. Throws Error(kInvalidArgument) for
// options.chunk_images (K counts images; these chunks are sized in bytes), a negative
// smart_threshold, or a C of 4 GiB or more (HDF5's limit).
std::unique_ptr<ChunkPacker> MakeFlatChunkPacker(const SampleSource& source,
                                                 const ConvertOptions& options);

}  // namespace h5feed::converters
