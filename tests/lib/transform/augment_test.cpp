// The augmentation draws (augment.h): a flip half of the time, crop offsets uniform over
// [0, 2P] in each direction and independent of each other, and the same draws for the same
// (seed, epoch, row, copy, view) whatever else happens.
#include "transform/augment.h"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

namespace h5feed::transform {
namespace {

AugmentParams Params(int32_t padding, bool flip, uint64_t seed = 7) {
  AugmentParams params;
  params.seed = seed;
  params.out_height = 32;
  params.out_width = 32;
  params.padding = padding;
  params.random_flip = flip;
  return params;
}

TEST_CASE("about half of the samples are flipped, over rows, epochs and echo copies") {
  const AugmentParams params = Params(0, true);
  constexpr int kDraws = 200'000;
  int flipped = 0;
  for (int i = 0; i < kDraws; ++i) {
    flipped += DrawTransform(params, i % 3, i / 6, (i / 3) % 2).flip;
  }
  // Binomial(200000, 1/2): sigma = 224; 5 sigma is 0.56% of the draws.
  CHECK(std::abs(flipped - kDraws / 2) < 5 * 224);
  // Flip alone never shifts.
  CHECK(DrawTransform(params, 0, 5, 0).shift_x == 0);
  CHECK(DrawTransform(params, 0, 5, 0).shift_y == 0);
}

TEST_CASE("crop offsets are uniform over [0, 2P] and independent between the axes") {
  constexpr int kPadding = 4;
  constexpr int kChoices = 2 * kPadding + 1;
  const AugmentParams params = Params(kPadding, false);
  constexpr int kDraws = 81 * 2000;
  std::array<std::array<int, kChoices>, kChoices> joint{};
  for (int row = 0; row < kDraws; ++row) {
    const SampleTransform t = DrawTransform(params, 3, row, 0);
    const int oy = t.shift_y + kPadding;
    const int ox = t.shift_x + kPadding;
    REQUIRE(oy >= 0);
    REQUIRE(oy < kChoices);
    REQUIRE(ox >= 0);
    REQUIRE(ox < kChoices);
    ++joint[static_cast<size_t>(oy)][static_cast<size_t>(ox)];
    CHECK_FALSE(t.flip);
  }
  // Pearson's chi-square over the 81 cells (80 degrees of freedom): mean 80, sd 12.6; the
  // 99.99th percentile is about 133. Uniform marginals follow from a uniform joint.
  const double expected = kDraws / 81.0;
  double chi_square = 0;
  for (const auto& row : joint) {
    for (int count : row) chi_square += (count - expected) * (count - expected) / expected;
  }
  CHECK(chi_square < 133);
}

TEST_CASE("the draws are a pure function of seed, epoch, row and echo copy") {
  const AugmentParams params = Params(4, true);
  const auto draw = [&](const AugmentParams& p, int64_t epoch, int64_t row, int copy) {
    const SampleTransform t = DrawTransform(p, epoch, row, copy);
    return std::make_tuple(t.shift_y, t.shift_x, t.flip);
  };
  // Same key, same draw, whatever was drawn in between.
  const auto first = draw(params, 2, 1234, 1);
  for (int i = 0; i < 100; ++i) draw(params, i, i, i % 3);
  CHECK(draw(params, 2, 1234, 1) == first);
  // Each part of the key matters: of 1000 keys changed in one part, almost none repeat the
  // draw (162 possible outcomes: a repeat rate near 1/162 is what independence gives).
  int same_epoch = 0, same_row = 0, same_copy = 0, same_seed = 0, same_view = 0;
  int same_next_copy = 0;
  const AugmentParams other_seed = Params(4, true, 8);
  AugmentParams other_view = params;
  other_view.view = 1;
  for (int64_t row = 0; row < 1000; ++row) {
    const auto base = draw(params, 0, row, 0);
    same_epoch += draw(params, 1, row, 0) == base;
    same_row += draw(params, 0, row + 1000, 0) == base;
    same_copy += draw(params, 0, row, 1) == base;
    same_seed += draw(other_seed, 0, row, 0) == base;
    same_view += draw(other_view, 0, row, 0) == base;
    // Copies 2 and 3 (and any c, c ^ 1) draw independently: no draw of one is another's.
    same_next_copy += std::get<0>(draw(params, 0, row, 2)) == std::get<0>(draw(params, 0, row, 3));
  }
  CHECK(same_epoch < 20);
  CHECK(same_row < 20);
  CHECK(same_copy < 20);
  CHECK(same_seed < 20);
  CHECK(same_view < 20);
  // Offsets take 9 values: a share near 1/9 (111 of 1000) is what independence gives.
  CHECK(same_next_copy < 160);
}

TEST_CASE("without random augmentation every sample keeps its pixels in place") {
  const AugmentParams params = Params(0, false);
  const SampleTransform t = DrawTransform(params, 1, 2, 3);
  CHECK(t.shift_x == 0);
  CHECK(t.shift_y == 0);
  CHECK_FALSE(t.flip);
  CHECK(SourceColumn(params, t, 5) == 5);
  SampleTransform mirrored;
  mirrored.flip = true;
  CHECK(SourceColumn(params, mirrored, 0) == 31);
}

}  // namespace
}  // namespace h5feed::transform
