#pragma once
// The layout of a version 1 file (docs/format.md): every image at the source's one shape, K
// images a chunk. A group holds K samples; the readable ones of consecutive groups are packed
// into chunks of exactly K, so a skipped sample shifts all later ones, and the last chunk holds
// the rest (the Writer pads it to K).

#include <memory>

#include "chunk_packer.h"
#include "convert_options.h"
#include "sample_source.h"

namespace h5feed::converters {

// K is options.chunk_images, or the K whose chunks are nearest options.chunk_bytes (default
// 4 MiB), at most the source's count() (the whole dataset's, so the parts of a conversion in
// parts share it). A K so chosen is counted before any input is read: when broken inputs
// leave fewer images than K in all, the file's one chunk is sized by the images stored (Flush
// changes the layout), except in a part of a conversion in parts, whose K the other parts
// share. Its Read refuses (kInternal) a sample of another shape than shape(); its
// report gives the shape, K (or the images written, when fewer) and the pixels' bytes. Throws
// Error(kInvalidArgument) for an encoding other than raw, which only images at their own size
// are stored in.
std::unique_ptr<ChunkPacker> MakeFixedChunkPacker(const SampleSource& source,
                                                  const ConvertOptions& options);

}  // namespace h5feed::converters
