#include "sources/npy_source.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::RunPython;
using testing::SampleBuffer;
using testing::ScratchDir;

// The value numpy computes for element k of the test arrays: (k * 7) % 251.
uint8_t Expected(int64_t k) { return static_cast<uint8_t>((k * 7) % 251); }

// Python that saves images (shape `shape`, values Expected) to `path`.
std::string SaveImages(const std::string& path, const std::string& shape,
                       const std::string& extra = "") {
  return "import numpy as np; s = " + shape +
         "; a = (np.arange(int(np.prod(s)), dtype=np.int64) * 7 % 251).astype(np.uint8)"
         ".reshape(s)" +
         extra + "; np.save(\"" + path + "\", a)";
}

using testing::CodeOf;

void CheckAllRows(const SampleSource& source) {
  const int64_t bytes = source.shape().bytes();
  SampleBuffer row;
  int64_t wrong = 0;
  for (int64_t i = 0; i < source.count(); ++i) {
    source.Read(i, row);
    CHECK(row.shape == source.shape());
    for (int64_t k = 0; k < bytes; ++k) wrong += row.pixels[k] != Expected(i * bytes + k);
  }
  CHECK(wrong == 0);
}

TEST_CASE("an (N, H, W, C) uint8 array is read row by row with its labels") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(6, 5, 4, 3)") + "; np.save(\"" + (dir / "labels.npy") +
            "\", np.array([3, 0, 1, 3, 2, 0], dtype=np.int64))");
  auto source = OpenNpy(dir / "images.npy", dir / "labels.npy");
  CHECK(source->kind() == "npy");
  CHECK(source->count() == 6);
  CHECK(source->shape() == ImageShape{5, 4, 3});
  CHECK(source->classes() == std::vector<std::string>{"0", "1", "2", "3"});
  CheckAllRows(*source);
  SampleBuffer row;
  SampleInfo info = source->Read(4, row);
  CHECK(info.label == 2);
  CHECK(info.source == "images.npy#4");
  CHECK(source->name(5) == "images.npy#5");
}

TEST_CASE("an (N, H, W) array keeps one channel and without labels every label is 0") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "gray.npy", "(3, 7, 9)"));
  auto source = OpenNpy(dir / "gray.npy", "");
  CHECK(source->shape() == ImageShape{7, 9, 1});
  CHECK(source->classes() == std::vector<std::string>{"0"});
  CheckAllRows(*source);
  SampleBuffer row;
  CHECK(source->Read(2, row).label == 0);
}

TEST_CASE("labels of every integer dtype and byte order are read") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(4, 2, 2, 1)"));
  int n = 0;
  for (const char* dtype : {"i1", "u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4",
                            "<i8", ">i8", "<u8", ">u8"}) {
    CAPTURE(dtype);
    std::string labels = dir / ("labels" + std::to_string(n++) + ".npy");
    RunPython("import numpy as np; np.save(\"" + labels + "\", np.array([5, 0, 120, 7], dtype=\"" +
              dtype + "\"))");
    auto source = OpenNpy(dir / "images.npy", labels);
    SampleBuffer row;
    CHECK(source->Read(0, row).label == 5);
    CHECK(source->Read(2, row).label == 120);
    CHECK(source->Read(3, row).label == 7);
    CHECK(source->classes().size() == 121);
  }
}

TEST_CASE("labels of shape (N, 1) are accepted") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(3, 2, 2, 3)") + "; np.save(\"" + (dir / "labels.npy") +
            "\", np.array([[1], [0], [1]]))");
  auto source = OpenNpy(dir / "images.npy", dir / "labels.npy");
  SampleBuffer row;
  CHECK(source->Read(0, row).label == 1);
  CHECK(source->Read(1, row).label == 0);
}

TEST_CASE("reads from many threads at once return the right rows") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(64, 8, 8, 3)"));
  auto source = OpenNpy(dir / "images.npy", "");
  std::vector<int64_t> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SampleBuffer row;
      for (int64_t i = t; i < 64; i += 4) {
        source->Read(i, row);
        for (int64_t k = 0; k < 192; ++k) wrong[t] += row.pixels[k] != Expected(i * 192 + k);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == std::vector<int64_t>(4, 0));
}

TEST_CASE("unsupported arrays are refused with a way to convert them") {
  ScratchDir dir;
  std::string message;
  RunPython("import numpy as np; np.save(\"" + (dir / "float.npy") +
            "\", np.zeros((2, 4, 4, 3), dtype=np.float32))");
  CHECK(CodeOf([&] { OpenNpy(dir / "float.npy", ""); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("uint8 is needed") != std::string::npos);

  RunPython(SaveImages(dir / "fortran.npy", "(2, 4, 4, 3)", "; a = np.asfortranarray(a)"));
  CHECK(CodeOf([&] { OpenNpy(dir / "fortran.npy", ""); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("ascontiguousarray") != std::string::npos);

  RunPython(SaveImages(dir / "five.npy", "(2, 4, 4, 5)"));
  CHECK(CodeOf([&] { OpenNpy(dir / "five.npy", ""); }, &message) == ErrorCode::kUnsupported);
  CHECK(message.find("(2, 4, 4, 5)") != std::string::npos);

  RunPython(SaveImages(dir / "flat.npy", "(2, 48)"));
  CHECK(CodeOf([&] { OpenNpy(dir / "flat.npy", ""); }) == ErrorCode::kUnsupported);
}

TEST_CASE("labels that do not fit the images are refused") {
  ScratchDir dir;
  std::string message;
  RunPython(SaveImages(dir / "images.npy", "(3, 2, 2, 3)") + "; np.save(\"" + (dir / "short.npy") +
            "\", np.array([1, 2]))" + "; np.save(\"" + (dir / "negative.npy") +
            "\", np.array([1, -1, 2]))" + "; np.save(\"" + (dir / "float.npy") +
            "\", np.array([1.0, 2.0, 0.0]))" + "; np.save(\"" + (dir / "matrix.npy") +
            "\", np.zeros((3, 2), dtype=np.int64))");
  std::string images = dir / "images.npy";
  CHECK(CodeOf([&] { OpenNpy(images, dir / "short.npy"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("2 labels for 3 images") != std::string::npos);
  CHECK(CodeOf([&] { OpenNpy(images, dir / "negative.npy"); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("negative.npy[1] is -1") != std::string::npos);
  CHECK(CodeOf([&] { OpenNpy(images, dir / "float.npy"); }) == ErrorCode::kUnsupported);
  CHECK(CodeOf([&] { OpenNpy(images, dir / "matrix.npy"); }) == ErrorCode::kUnsupported);
  CHECK(CodeOf([&] { OpenNpy(images, dir / "absent.npy"); }) == ErrorCode::kNotFound);
  CHECK(CodeOf([&] { OpenNpy(dir / "absent.npy", ""); }) == ErrorCode::kNotFound);
}

TEST_CASE("a truncated array file is reported as truncated") {
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(4, 8, 8, 3)"));
  std::filesystem::resize_file(dir / "images.npy", 128 + 3 * 192 + 10);
  std::string message;
  CHECK(CodeOf([&] { OpenNpy(dir / "images.npy", ""); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("truncated") != std::string::npos);
}

TEST_CASE("an array file truncated while it is converted is an error naming it, not a crash") {
  // numpy.save onto the input's path truncates it first: rows read after that are gone. The
  // error is not kCorrupt, which would skip each later row as a broken sample.
  ScratchDir dir;
  RunPython(SaveImages(dir / "images.npy", "(64, 32, 32, 3)") + "; np.save(\"" +
            (dir / "attrs.npy") + "\", np.arange(64 * 1000, dtype=np.int64).reshape(64, 1000))");
  auto source = OpenNpy(dir / "images.npy", "", {{"attrs", dir / "attrs.npy"}});
  SampleBuffer row;
  source->Read(0, row);
  std::filesystem::resize_file(dir / "images.npy", 4096);
  std::string message;
  CHECK(CodeOf([&] { source->Read(63, row); }, &message) == ErrorCode::kIo);
  CHECK(message.find("images.npy") != std::string::npos);
  std::filesystem::resize_file(dir / "attrs.npy", 4096);
  CHECK(CodeOf([&] { source->Read(0, row); }, &message) == ErrorCode::kIo);  // image 0 is whole
  CHECK(message.find("attrs.npy") != std::string::npos);
}

TEST_CASE("a header length no numpy writes is refused before anything is allocated for it") {
  ScratchDir dir;
  // Version 2.0, header length 0x7fffffff: the file would need 2 GiB of header.
  testing::WriteFile(dir / "images.npy", std::vector<uint8_t>{0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0,
                                                              0xff, 0xff, 0xff, 0x7f, '{', '}'});
  std::string message;
  CHECK(CodeOf([&] { OpenNpy(dir / "images.npy", ""); }, &message) == ErrorCode::kCorrupt);
  CHECK(message.find("header of 2147483647 bytes") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::converters
