#pragma once
// Whether this test binary runs the GPU stage on the CUDA emulation (tests/support/
// cuda_emulation/): every block's threads are host threads there, about a millisecond for each
// __syncthreads on two cores, so GPU tests size their files and cases by it.

namespace h5feed::testing {

#if defined(H5FEED_CUDA_EMULATION)
inline constexpr bool kEmulated = true;
#else
inline constexpr bool kEmulated = false;
#endif

}  // namespace h5feed::testing
