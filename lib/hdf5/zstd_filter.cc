// The zstd filter function and class (zstd_filter.h). Built into the h5feed library and into
// the plugin; calls no HDF5 function, so the plugin needs no libhdf5.

#include "hdf5/zstd_filter.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "codec/zstd_context.h"

namespace h5feed::hdf5 {
namespace {

// HDF5 hands the filter a buffer from its allocator and frees what the filter returns with the
// same allocator. Debian's libhdf5 is built without H5_MEMORY_ALLOC_SANITY_CHECK, so that
// allocator is malloc/free, as H5Z-ZSTD and the other registered plugins assume.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using MallocBuffer = std::unique_ptr<void, FreeDeleter>;

int LevelFrom(size_t cd_nelmts, const unsigned int cd_values[]) {
  // H5Z-ZSTD's reading of cd_values[0]: a signed level stored in an unsigned slot.
  int level = cd_nelmts > 0 ? static_cast<int>(cd_values[0]) : ZSTD_CLEVEL_DEFAULT;
  return std::clamp(level, ZSTD_minCLevel(), ZSTD_maxCLevel());
}

// Replaces HDF5's buffer with `output` holding `size` valid bytes in `capacity`.
size_t Hand(MallocBuffer output, size_t size, size_t capacity, size_t* buf_size, void** buf) {
  std::free(*buf);
  *buf = output.release();
  *buf_size = capacity;
  return size;
}

size_t Compress(int level, size_t nbytes, size_t* buf_size, void** buf) {
  size_t capacity = ZSTD_compressBound(nbytes);
  MallocBuffer output(std::malloc(capacity));
  if (!output) return 0;
  size_t written = ZSTD_compressCCtx(&codec::ThreadCompressionContext(), output.get(), capacity,
                                     *buf, nbytes, level);
  if (ZSTD_isError(written)) return 0;
  return Hand(std::move(output), written, capacity, buf_size, buf);
}

// For frames that do not record their size (written by a streaming zstd) or that are followed
// by more frames: decompress into a buffer that doubles as needed.
size_t DecompressStreaming(size_t nbytes, size_t* buf_size, void** buf) {
  ZSTD_DCtx& context = codec::ThreadDecompressionContext();
  ZSTD_DCtx_reset(&context, ZSTD_reset_session_only);
  size_t capacity = std::max(nbytes * 4, ZSTD_DStreamOutSize());
  MallocBuffer output(std::malloc(capacity));
  if (!output) return 0;
  ZSTD_inBuffer in{*buf, nbytes, 0};
  ZSTD_outBuffer out{output.get(), capacity, 0};
  for (;;) {
    if (out.pos == out.size) {
      size_t larger = out.size * 2;
      void* grown = std::realloc(output.get(), larger);
      if (!grown) return 0;
      output.release();
      output.reset(grown);
      out.dst = grown;
      out.size = larger;
    }
    size_t status = ZSTD_decompressStream(&context, &out, &in);
    if (ZSTD_isError(status)) return 0;
    if (status == 0 && in.pos == in.size) break;            // last frame complete and flushed
    if (in.pos == in.size && out.pos < out.size) return 0;  // input ends inside a frame
  }
  return Hand(std::move(output), out.pos, out.size, buf_size, buf);
}

size_t Decompress(size_t nbytes, size_t* buf_size, void** buf) {
  unsigned long long size = ZSTD_getFrameContentSize(*buf, nbytes);
  if (size == ZSTD_CONTENTSIZE_ERROR) return 0;
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) return DecompressStreaming(nbytes, buf_size, buf);
  // malloc(0) may return null; an empty chunk still needs a buffer HDF5 can free.
  MallocBuffer output(std::malloc(std::max<unsigned long long>(size, 1)));
  if (!output) return 0;
  size_t written =
      ZSTD_decompressDCtx(&codec::ThreadDecompressionContext(), output.get(), size, *buf, nbytes);
  if (ZSTD_isError(written)) {
    // More frames follow the first: their sizes add up beyond the first frame's.
    if (ZSTD_getErrorCode(written) == ZSTD_error_dstSize_tooSmall) {
      return DecompressStreaming(nbytes, buf_size, buf);
    }
    return 0;
  }
  return Hand(std::move(output), written, size, buf_size, buf);
}

size_t ZstdFilterFunction(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t* buf_size, void** buf) noexcept {
  try {
    if (flags & H5Z_FLAG_REVERSE) return Decompress(nbytes, buf_size, buf);
    return Compress(LevelFrom(cd_nelmts, cd_values), nbytes, buf_size, buf);
  } catch (...) {
    // Only std::bad_alloc from creating a zstd context can reach here; an exception must
    // never unwind through HDF5's C frames.
    return 0;
  }
}

const H5Z_class2_t kZstdFilterClass = {
    H5Z_CLASS_T_VERS,
    kZstdFilterId,
    1,  // encoder present
    1,  // decoder present
    "Zstandard compression: http://www.zstd.net (h5feed)",
    nullptr,  // can_apply: zstd applies to any type and chunk shape
    nullptr,  // set_local: the level is all the filter needs
    ZstdFilterFunction,
};

}  // namespace

const H5Z_class2_t& ZstdFilterClass() { return kZstdFilterClass; }

}  // namespace h5feed::hdf5
