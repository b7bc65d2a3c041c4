#pragma once
// How `h5feed verify` checks the chunks of a file (h5feed/verify.h): each read and decoded
// through the Loader's own ChunkReader, so verify judges what the Loader would deliver; a chunk
// that fails its checksum is decoded again without it to find the bad images. Where the file
// checksums each image, every image is checked against its own; an own-size file's images are
// checked by their decoders (decode/image_decoder.h: a JPEG is decoded whole).
//
// Chunks are checked in parallel (TBB, options.threads) outside HDF5's lock, each worker
// holding one decoded chunk and one decode scratch (the pixels of one image). Stateless
// functions; the report is written under a mutex, on_progress called one call at a time.

#include <cstdint>
#include <string>

#include "h5feed/verify.h"
#include "index/dataset_index.h"

namespace h5feed::index {

// A problem of chunk `chunk` of `index`, with the rows it holds.
ChunkProblem ChunkProblemAt(const DatasetIndex& index, int64_t chunk, std::string problem);

// Reads and decodes every chunk of `index` (and checks its images), adding every bad chunk
// and image to `report` with what was and was not checked. Throws Error when the file cannot
// be opened for reading.
void CheckChunks(const DatasetIndex& index, const VerifyOptions& options,
                 VerificationReport& report);

}  // namespace h5feed::index
