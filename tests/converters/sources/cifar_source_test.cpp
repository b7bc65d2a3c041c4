#include "sources/cifar_source.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <vector>

#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::SampleBuffer;
using testing::ScratchDir;
using testing::WriteFile;
using testing::WriteText;

// The planar value of colour plane `c`, pixel `p` of record `record` of file `file`: distinct
// enough across records, planes and pixels that a wrong offset or transposition shows.
uint8_t PixelValue(int file, int record, int c, int p) {
  return static_cast<uint8_t>((file * 61 + record * 29 + c * 101 + p * 7) % 256);
}

// One CIFAR file: records of `labels` (one or two label bytes each) and PixelValue pixels.
std::vector<uint8_t> CifarFile(int file, const std::vector<std::vector<uint8_t>>& labels) {
  std::vector<uint8_t> bytes;
  for (size_t r = 0; r < labels.size(); ++r) {
    bytes.insert(bytes.end(), labels[r].begin(), labels[r].end());
    for (int c = 0; c < 3; ++c) {
      for (int p = 0; p < 1024; ++p) bytes.push_back(PixelValue(file, static_cast<int>(r), c, p));
    }
  }
  return bytes;
}

// Requires sample `sample` of `source` to be record `record` of file `file`, interleaved.
void CheckSample(const SampleSource& source, int64_t sample, int file, int record, int64_t label,
                 const std::string& name) {
  SampleBuffer buffer;
  SampleInfo info = source.Read(sample, buffer);
  CHECK(buffer.shape == ImageShape{32, 32, 3});
  CHECK(info.label == label);
  CHECK(info.source == name);
  CHECK(source.name(sample) == name);
  int wrong = 0;
  for (int p = 0; p < 1024; ++p) {
    for (int c = 0; c < 3; ++c) wrong += buffer.pixels[3 * p + c] != PixelValue(file, record, c, p);
  }
  CHECK(wrong == 0);
}

const char kCifar10Names[] =
    "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n";

// A CIFAR-10 folder: two records per training batch (labels b and 9-b), three test records.
void WriteCifar10(const std::filesystem::path& dir, bool names = true) {
  for (int b = 1; b <= 5; ++b) {
    WriteFile((dir / ("data_batch_" + std::to_string(b) + ".bin")).string(),
              CifarFile(b, {{static_cast<uint8_t>(b)}, {static_cast<uint8_t>(9 - b)}}));
  }
  WriteFile((dir / "test_batch.bin").string(), CifarFile(0, {{3}, {0}, {9}}));
  if (names) WriteText((dir / "batches.meta.txt").string(), kCifar10Names);
}

void WriteCifar100(const std::filesystem::path& dir) {
  // Records: (coarse, fine).
  WriteFile((dir / "train.bin").string(), CifarFile(1, {{19, 99}, {0, 7}, {4, 42}}));
  WriteFile((dir / "test.bin").string(), CifarFile(2, {{2, 3}}));
}

TEST_CASE("CIFAR-10 training batches are read in file order with interleaved pixels") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  auto source = OpenCifar(dir.path(), {});
  CHECK(source->kind() == "cifar");
  CHECK(source->count() == 10);
  CHECK(source->shape() == ImageShape{32, 32, 3});
  CHECK(source->classes() == std::vector<std::string>{"airplane", "automobile", "bird", "cat",
                                                      "deer", "dog", "frog", "horse", "ship",
                                                      "truck"});
  CHECK_FALSE(source->prefers_sequential_reads());
  for (int b = 1; b <= 5; ++b) {
    std::string file = "data_batch_" + std::to_string(b) + ".bin";
    CheckSample(*source, 2 * (b - 1), b, 0, b, file + "#0");
    CheckSample(*source, 2 * (b - 1) + 1, b, 1, 9 - b, file + "#1");
  }
}

TEST_CASE("the CIFAR-10 test split is test_batch.bin") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  CifarOptions options;
  options.split = CifarOptions::Split::kTest;
  auto source = OpenCifar(dir.path(), options);
  REQUIRE(source->count() == 3);
  CheckSample(*source, 0, 0, 0, 3, "test_batch.bin#0");
  CheckSample(*source, 2, 0, 2, 9, "test_batch.bin#2");
}

TEST_CASE("the folder the archive was extracted into is accepted") {
  ScratchDir dir;
  WriteCifar10(dir / "cifar-10-batches-bin");
  CHECK(OpenCifar(dir.path(), {})->count() == 10);
  ScratchDir dir100;
  WriteCifar100(dir100 / "cifar-100-binary");
  CHECK(OpenCifar(dir100.path(), {})->count() == 3);
}

TEST_CASE("without a class name file CIFAR-10 classes are the digits") {
  ScratchDir dir;
  WriteCifar10(dir.path(), false);
  auto source = OpenCifar(dir.path(), {});
  CHECK(source->classes() ==
        std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
}

TEST_CASE("CIFAR-100 gives fine labels by default and coarse labels on request") {
  ScratchDir dir;
  WriteCifar100(dir.path());
  auto fine = OpenCifar(dir.path(), {});
  REQUIRE(fine->count() == 3);
  REQUIRE(fine->classes().size() == 100);
  CHECK(fine->classes()[42] == "42");
  CheckSample(*fine, 0, 1, 0, 99, "train.bin#0");
  CheckSample(*fine, 2, 1, 2, 42, "train.bin#2");

  CifarOptions options;
  options.labels = CifarOptions::Labels::kCoarse;
  auto coarse = OpenCifar(dir.path(), options);
  CHECK(coarse->classes().size() == 20);
  CheckSample(*coarse, 0, 1, 0, 19, "train.bin#0");
  CheckSample(*coarse, 1, 1, 1, 0, "train.bin#1");

  options.split = CifarOptions::Split::kTest;
  auto test = OpenCifar(dir.path(), options);
  REQUIRE(test->count() == 1);
  CheckSample(*test, 0, 2, 0, 2, "test.bin#0");
}

TEST_CASE("CIFAR-100 class names come from the fine and coarse name files") {
  ScratchDir dir;
  WriteCifar100(dir.path());
  std::string fine, coarse;
  for (int i = 0; i < 100; ++i) fine += "fine" + std::to_string(i) + "\r\n";
  for (int i = 0; i < 20; ++i) coarse += "coarse" + std::to_string(i) + "\n";
  WriteText(dir / "fine_label_names.txt", fine);
  WriteText(dir / "coarse_label_names.txt", coarse);
  CHECK(OpenCifar(dir.path(), {})->classes()[99] == "fine99");
  CifarOptions options;
  options.labels = CifarOptions::Labels::kCoarse;
  CHECK(OpenCifar(dir.path(), options)->classes()[19] == "coarse19");
}

TEST_CASE("CIFAR-10 has no coarse labels") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  CifarOptions options;
  options.labels = CifarOptions::Labels::kCoarse;
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), options), doctest::Contains("coarse"), Error);
}

using testing::CodeOf;

TEST_CASE("a missing training batch is named in the error") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  std::filesystem::remove(dir / "data_batch_4.bin");
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), {}), doctest::Contains("lacks data_batch_4.bin"),
                       Error);
  CHECK(CodeOf([&] { OpenCifar(dir.path(), {}); }) == ErrorCode::kNotFound);
  CifarOptions test;
  test.split = CifarOptions::Split::kTest;
  CHECK(OpenCifar(dir.path(), test)->count() == 3);  // the test split is complete
}

TEST_CASE("a folder without CIFAR binaries says which files were expected") {
  ScratchDir dir;
  WriteText(dir / "readme.txt", "nothing here");
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), {}), doctest::Contains("data_batch_1.bin"), Error);
  CHECK(CodeOf([&] { OpenCifar(dir.path(), {}); }) == ErrorCode::kNotFound);
  CHECK(CodeOf([&] { OpenCifar(dir / "absent", {}); }) == ErrorCode::kNotFound);
}

TEST_CASE("a truncated batch file is reported as truncated") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  std::filesystem::resize_file(dir / "data_batch_2.bin", 3073 + 1000);
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), {}),
                       doctest::Contains("data_batch_2.bin is truncated"), Error);
  CHECK(CodeOf([&] { OpenCifar(dir.path(), {}); }) == ErrorCode::kCorrupt);
}

TEST_CASE("an empty batch file is an error naming it, not a batch of no record") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  std::filesystem::resize_file(dir / "data_batch_1.bin", 0);
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), {}),
                       doctest::Contains("data_batch_1.bin is empty (0 bytes)"), Error);
  CHECK(CodeOf([&] { OpenCifar(dir.path(), {}); }) == ErrorCode::kCorrupt);
}

TEST_CASE("a record whose label is out of range is a corrupt sample naming the record") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  WriteFile(dir / "data_batch_3.bin", CifarFile(3, {{1}, {10}}));
  auto source = OpenCifar(dir.path(), {});
  SampleBuffer pixels;
  CHECK_THROWS_WITH_AS(source->Read(5, pixels), doctest::Contains("data_batch_3.bin#1"), Error);
  CHECK(CodeOf([&] { source->Read(5, pixels); }) == ErrorCode::kCorrupt);
  CheckSample(*source, 4, 3, 0, 1, "data_batch_3.bin#0");  // its neighbour reads fine
}

TEST_CASE("a class name file with the wrong number of names is an error") {
  ScratchDir dir;
  WriteCifar10(dir.path());
  WriteText(dir / "batches.meta.txt", "cat\ndog\n");
  CHECK_THROWS_WITH_AS(OpenCifar(dir.path(), {}), doctest::Contains("2 class names"), Error);
}

}  // namespace
}  // namespace h5feed::converters
