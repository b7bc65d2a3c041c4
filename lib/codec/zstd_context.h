#pragma once
// Per-thread zstd compression and decompression contexts, created on first use and reused.
//
// zstd.h: "Use one context per thread for parallel execution." A context holds about 1 MiB
// (decompression) to several MiB (compression at level 3 for a 4 MiB chunk) of tables;
// creating one per chunk would cost more than decompressing a small chunk. Each thread owns
// its contexts (thread_local RAII), freed when the thread exits. The reference returned is
// valid on the calling thread only, until it exits; never hand it to another thread.
//
// No h5feed::Error here on purpose: this file is also built into the HDF5 plugin, which
// carries no h5feed library. Allocation failure throws std::bad_alloc.

#include <zstd.h>

namespace h5feed::codec {

ZSTD_CCtx& ThreadCompressionContext();
ZSTD_DCtx& ThreadDecompressionContext();

}  // namespace h5feed::codec
