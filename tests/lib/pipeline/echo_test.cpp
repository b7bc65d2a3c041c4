#include "pipeline/echo.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "lib/memory/float_slots.h"
#include "sampler/permutation.h"

namespace h5feed::pipeline {
namespace {

TEST_CASE("copy 0 keeps the loaded order and later copies permute it") {
  std::vector<int64_t> identity(100);
  std::iota(identity.begin(), identity.end(), 0);
  CHECK(EchoPermutation(100, 7, 3, 5, 0) == identity);
  for (int copy = 1; copy < 4; ++copy) {
    std::vector<int64_t> p = EchoPermutation(100, 7, 3, 5, copy);
    CHECK(p != identity);
    std::vector<int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == identity);
  }
}

TEST_CASE("echo permutations are a function of seed, epoch, step and copy only") {
  CHECK(EchoPermutation(64, 1, 2, 3, 1) == EchoPermutation(64, 1, 2, 3, 1));
  CHECK(EchoPermutation(64, 1, 2, 3, 1) != EchoPermutation(64, 1, 2, 3, 2));
  CHECK(EchoPermutation(64, 1, 2, 3, 1) != EchoPermutation(64, 1, 2, 4, 1));
  CHECK(EchoPermutation(64, 1, 2, 3, 1) != EchoPermutation(64, 1, 3, 3, 1));
  CHECK(EchoPermutation(64, 1, 2, 3, 1) != EchoPermutation(64, 2, 2, 3, 1));
  CHECK(EchoPermutation(64, 1, 2, 3, 1) == sampler::Permutation(64, EchoSeed(1, 2, 3, 1)));
}

TEST_CASE("the echo seed is the documented chain of SplitMix64 steps") {
  auto mix = [](uint64_t x) { return transform::SplitMix64(x).Next(); };
  const uint64_t expected = mix(mix(mix(mix(mix(11) ^ 22u) ^ 4u) ^ 33u) ^ 2u);
  CHECK(EchoSeed(11, 22, 33, 2) == expected);
}

TEST_CASE("a permuted copy moves every array of a row together") {
  memory::SlotLayout layout(6, {2, 3, 3}, testing::FloatImages({2, 3, 3}));
  std::vector<uint8_t> a(layout.bytes() + 256), b(layout.bytes() + 256);
  auto aligned = [&](std::vector<uint8_t>& v) {
    auto base = reinterpret_cast<uintptr_t>(v.data());
    return std::span<uint8_t>(v.data() + (256 - base % 256) % 256, layout.bytes());
  };
  memory::SlotView from = layout.View(aligned(a));
  memory::SlotView to = layout.View(aligned(b));
  const std::span<float> from_floats = testing::Floats(from.output);
  const std::span<float> to_floats = testing::Floats(to.output);
  const int64_t image = layout.shape().bytes();
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t j = 0; j < image; ++j) {
      from.images[static_cast<size_t>(r * image + j)] = static_cast<uint8_t>(r * 10 + j);
      from_floats[static_cast<size_t>(r * image + j)] = static_cast<float>(r) + j / 100.0f;
    }
    from.labels[static_cast<size_t>(r)] = 100 + r;
    from.indices[static_cast<size_t>(r)] = 1000 + r;
  }
  const std::vector<int64_t> permutation = {4, 0, 5, 1, 3};  // 5 of the 6 rows
  tbb::task_arena arena(2);
  arena.execute([&] { CopyPermuted(layout, from, to, permutation); });
  for (size_t i = 0; i < permutation.size(); ++i) {
    const int64_t r = permutation[i];
    CHECK(to.labels[i] == 100 + r);
    CHECK(to.indices[i] == 1000 + r);
    for (int64_t j = 0; j < image; ++j) {
      CHECK(to.images[i * static_cast<size_t>(image) + static_cast<size_t>(j)] == r * 10 + j);
      CHECK(to_floats[i * static_cast<size_t>(image) + static_cast<size_t>(j)] ==
            static_cast<float>(r) + j / 100.0f);
    }
  }
}

TEST_CASE("delivered steps number the copies of each loaded step in turn") {
  CHECK(EchoStep::Of(0, 3).loaded == 0);
  CHECK(EchoStep::Of(7, 3).loaded == 2);
  CHECK(EchoStep::Of(7, 3).copy == 1);
  CHECK(EchoStep::Of(7, 1).loaded == 7);
  CHECK(EchoStep::Of(7, 1).copy == 0);
  for (int echo = 1; echo <= 4; ++echo) {
    for (int64_t step = 0; step < 20; ++step) {
      CAPTURE(echo);
      CAPTURE(step);
      const EchoStep at = EchoStep::Of(step, echo);
      CHECK(at.copy < echo);
      CHECK(at.delivered(echo) == step);
    }
  }
}

}  // namespace
}  // namespace h5feed::pipeline
