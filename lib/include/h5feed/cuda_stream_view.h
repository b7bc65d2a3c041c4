#pragma once
// A non-owning view of a CUDA stream (rmm's cuda_stream_view, without the CUDA header): what a
// trainer hands the loader so device batches are ready on the stream its kernels run on.
//
//   options.output.cuda_stream = my_stream;                       // a cudaStream_t converts
//   options.output.cuda_stream = h5feed::CudaStreamView::FromHandle(
//       torch_stream.cuda_stream);                                // an integer handle (Python)
//
// The default view is the legacy default stream (cudaStream_t 0). The view never creates,
// synchronizes or destroys the stream: the trainer keeps it alive while the loader, and any
// device batch it delivered, is alive. A value type; thread-safe as any value.
//
// C++17 (the GPU stage's nvcc-compiled code includes it): no CUDA header, only the name of the
// runtime's opaque stream type, which cudaStream_t is a pointer to.

#include <cstdint>

struct CUstream_st;  // cuda_runtime.h: typedef struct CUstream_st* cudaStream_t

namespace h5feed {

class CudaStreamView {
 public:
  constexpr CudaStreamView() = default;
  // Implicit, as rmm's is: a cudaStream_t (including cudaStreamPerThread) is a view.
  constexpr CudaStreamView(CUstream_st* stream) : stream_(stream) {}  // NOLINT(runtime/explicit)
  // A stream given as an integer (torch.cuda.Stream.cuda_stream, CuPy's Stream.ptr).
  static CudaStreamView FromHandle(uintptr_t handle) {
    return CudaStreamView(reinterpret_cast<CUstream_st*>(handle));
  }

  constexpr CUstream_st* value() const { return stream_; }  // the cudaStream_t
  uintptr_t handle() const { return reinterpret_cast<uintptr_t>(stream_); }
  constexpr bool is_default() const { return stream_ == nullptr; }

  friend constexpr bool operator==(CudaStreamView a, CudaStreamView b) {
    return a.stream_ == b.stream_;
  }
  friend constexpr bool operator!=(CudaStreamView a, CudaStreamView b) { return !(a == b); }

 private:
  CUstream_st* stream_ = nullptr;
};

}  // namespace h5feed
