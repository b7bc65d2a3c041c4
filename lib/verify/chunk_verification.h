#pragma once
// How `h5feed verify` checks the chunks of a file (h5feed/verify.h): each read and decoded
// through the file's chunk source, as the Loader reads them, so verify judges what the Loader
// would deliver (and a remote chunk corrupted on its way is fetched again, not reported as
// damage); a chunk that fails its checksum is decoded again without it to find the bad images.
// Where the file checksums each image, every image is checked against its own, and every image
// is checked by its encoding's decoder (decode/image_decoder.h: a JPEG is decoded whole).
//
// Chunks are checked in parallel (TBB, options.threads) outside HDF5's lock, each worker
// holding one decoded chunk and one decode scratch (the pixels of one image). Stateless
// functions; the report is written under a mutex, on_progress called one call at a time.

#include <cstdint>
#include <string>

#include "h5feed/verify.h"
#include "index/dataset_index.h"

namespace h5feed::verify {

// A problem of chunk `chunk` of `index`, with the rows it holds.
ChunkProblem ChunkProblemAt(const index::DatasetIndex& index, int64_t chunk, std::string problem);

// Reads and decodes every chunk of `index` (and checks its images), adding every bad chunk
// and image to `report` with what was and was not checked. Throws Error when the file cannot
// be opened for reading.
void CheckChunks(const index::DatasetIndex& index, const VerifyOptions& options,
                 VerificationReport& report);

}  // namespace h5feed::verify
