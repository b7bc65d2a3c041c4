// CudaStreamView (include/h5feed/cuda_stream_view.h): the trainer's stream as a value, built
// without any CUDA header.
#include "h5feed/cuda_stream_view.h"

#include <doctest/doctest.h>

#include <cstdint>

#include "h5feed/output_options.h"

namespace h5feed {
namespace {

TEST_CASE("the default stream view is the legacy default stream") {
  const OutputOptions options;
  CHECK(options.cuda_stream.is_default());
  CHECK(options.cuda_stream.value() == nullptr);
  CHECK(options.cuda_stream.handle() == 0);
}

TEST_CASE("a stream view gives back the handle it was made from, as a pointer and an integer") {
  // cudaStreamPerThread is the handle 0x2; torch hands streams to Python as integers.
  const CudaStreamView per_thread = CudaStreamView::FromHandle(0x2);
  CHECK_FALSE(per_thread.is_default());
  CHECK(per_thread.handle() == 0x2);
  CHECK(CudaStreamView(per_thread.value()) == per_thread);
  CHECK(CudaStreamView::FromHandle(0x7f00aa) != per_thread);
}

}  // namespace
}  // namespace h5feed
