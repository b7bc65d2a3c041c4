#include "codec/zstd_context.h"

#include <memory>
#include <new>

namespace h5feed::codec {
namespace {

struct CompressionContextDeleter {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
};
struct DecompressionContextDeleter {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

}  // namespace

ZSTD_CCtx& ThreadCompressionContext() {
  thread_local std::unique_ptr<ZSTD_CCtx, CompressionContextDeleter> context;
  if (!context) context.reset(ZSTD_createCCtx());
  if (!context) throw std::bad_alloc();
  return *context;
}

ZSTD_DCtx& ThreadDecompressionContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, DecompressionContextDeleter> context;
  if (!context) context.reset(ZSTD_createDCtx());
  if (!context) throw std::bad_alloc();
  return *context;
}

}  // namespace h5feed::codec
