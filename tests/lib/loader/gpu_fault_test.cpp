// What a device fault does to a run on the GPU stage: a copy or a kernel that fails on its
// stream, made to fail by the CUDA emulation's fault seam (cuda_emulation/faults.h; on a real
// GPU a bad address or a kernel fault, which no test can cause at will). The fault reaches the
// trainer as the loader's error, naming its epoch and step, after the batches before it; Next
// then says so again; nothing waits for work the failed device will never do.
//
// A device reports a fault at the next runtime call after it: the trainer here uses each batch
// before asking for the next (it synchronises its stream, whose own error it leaves to the
// loader to report), so the loader's next call is the one that meets the fault.
//
// The emulation only (label gpu-emulated): tests/lib/loader/CMakeLists.txt.

#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "cuda_emulation/faults.h"
#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "lib/loader/geometry_test_file.h"
#include "lib/loader/test_files.h"
#include "support/temp_folder.h"

namespace h5feed {
namespace {

using cuda_emulation::Work;
using testing::TempFolder;

struct Outcome {
  int64_t delivered = 0;  // batches before the error
  std::string message;
  ErrorCode code = ErrorCode::kInternal;
};

LoaderOptions FaultOptions() {
  LoaderOptions options;
  options.batch_size = 4;
  options.normalize = true;
  options.echo = 2;
  options.slots = 3;
  options.output.cuda_device = 0;
  return options;
}

// Runs epoch 3 of `path` on the emulated device with the nth `work` failing with `error`.
Outcome RunWithFault(const std::string& path, Work work, int nth, cudaError_t error,
                     const LoaderOptions& options = FaultOptions()) {
  cuda_emulation::ResetDevice();
  Outcome outcome;
  {
    Loader loader = Loader::Open(path, options);
    loader.SetEpoch(3);
    cuda_emulation::FailNth(work, nth, error);
    try {
      while (loader.Next()) {
        ++outcome.delivered;
        cudaStreamSynchronize(nullptr);  // the trainer's (default) stream: its step
      }
      FAIL("the run ended without the device's error");
    } catch (const Error& failure) {
      outcome.message = failure.what();
      outcome.code = failure.code();
    }
    // Asked again, the loader says so again rather than hang or deliver.
    CHECK_THROWS_AS(loader.Next(), Error);
  }  // destroyed with the device failed: must not hang
  cuda_emulation::ResetDevice();
  return outcome;
}

TEST_CASE("a copy or kernel failing on the device reaches the trainer with its epoch and step") {
  testing::ZstdFile file(32, {8, 8, 3});  // 8 loaded batches, 16 delivered steps
  for (Work work : {Work::kCopy, Work::kKernel}) {
    for (int nth : {1, 5}) {
      CAPTURE(static_cast<int>(work));
      CAPTURE(nth);
      const Outcome outcome = RunWithFault(file.path, work, nth, cudaErrorIllegalAddress);
      MESSAGE(outcome.message);
      CHECK(outcome.code == ErrorCode::kCuda);
      CHECK(outcome.message.find("cudaErrorIllegalAddress") != std::string::npos);
      CHECK(outcome.message.find("epoch 3") != std::string::npos);
      CHECK(outcome.message.find("step " + std::to_string(outcome.delivered)) != std::string::npos);
      CHECK(outcome.delivered <= nth);  // the fault surfaces at the next call after it
    }
  }
}

TEST_CASE("after a device fault a new loader on a reset device delivers every batch") {
  testing::ZstdFile file(16, {8, 8, 3});
  CHECK(RunWithFault(file.path, Work::kKernel, 2, cudaErrorLaunchFailure).code == ErrorCode::kCuda);
  LoaderOptions options;
  options.batch_size = 4;
  options.normalize = true;
  options.output.cuda_device = 0;
  Loader loader = Loader::Open(file.path, options);
  int64_t batches = 0;
  while (loader.Next()) ++batches;
  CHECK(batches == 4);
}

TEST_CASE("a fault in the copies and kernels that carry masks reaches the trainer the same way") {
  // Masks and boxes in two views with echo 2: each loaded batch adds the fields' copy, the
  // echo permutation of their rows and a mask crop per view to the images' work, so the nth
  // copy or kernel lands in those as well as in the images'.
  TempFolder folder;
  const std::string path = folder / "geometry.h5";
  testing::WriteGeometryTestFile(path, 12, false);
  LoaderOptions options = testing::GeometryViewsOptions();
  options.batch_size = 4;
  options.output.cuda_device = 0;
  for (Work work : {Work::kCopy, Work::kKernel}) {
    for (int nth : {1, 2, 3, 4, 6, 9}) {
      CAPTURE(static_cast<int>(work));
      CAPTURE(nth);
      const Outcome outcome = RunWithFault(path, work, nth, cudaErrorIllegalAddress, options);
      CHECK(outcome.code == ErrorCode::kCuda);
      CHECK(outcome.message.find("cudaErrorIllegalAddress") != std::string::npos);
      CHECK(outcome.message.find("epoch 3") != std::string::npos);
      CHECK(outcome.delivered <= nth);
    }
  }
}

}  // namespace
}  // namespace h5feed
