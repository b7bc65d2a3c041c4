#include "sampler/label_mixing.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "sampler/epoch_order.h"
#include "sampler/permutation.h"
#include "support/caught_error.h"

namespace h5feed::sampler {
namespace {

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return rows;
}

// `classes` classes of `per_class` rows each, stored class after class (as a walk of class
// folders writes them).
std::vector<int64_t> SortedLabels(int64_t classes, int64_t per_class) {
  std::vector<int64_t> labels;
  for (int64_t c = 0; c < classes; ++c) labels.insert(labels.end(), per_class, c);
  return labels;
}

TEST_CASE("hand-worked batches give the expected classes and entropy") {
  // Batches of 4 in file order: {0, 0, 0, 0} is one class, 0 bits; {1, 1, 2, 3} is three
  // classes with shares 1/2, 1/4, 1/4: 1.5 bits. Means: 2 classes, 0.75 bits.
  const std::vector<int64_t> labels{0, 0, 0, 0, 1, 1, 2, 3};
  const LabelMixingMeter meter(labels);
  CHECK(meter.rows() == 8);
  CHECK(meter.classes() == 4);
  const BatchMixing mix = meter.MeasureOrder(Iota(8), 4);
  CHECK(mix.classes_per_batch == doctest::Approx(2.0));
  CHECK(mix.entropy_bits == doctest::Approx(0.75));
  // The same rows in another order: rows 0, 4, 6, 7 are labels 0, 1, 2, 3 (4 classes, 2
  // bits), rows 1, 2, 3, 5 are 0, 0, 0, 1 (2 classes, shares 3/4 and 1/4: 0.811 bits).
  const std::vector<int64_t> order{0, 4, 6, 7, 1, 2, 3, 5};
  const BatchMixing other = meter.MeasureOrder(order, 4);
  const double three_one = -(0.75 * std::log2(0.75) + 0.25 * std::log2(0.25));
  CHECK(other.classes_per_batch == doctest::Approx(3.0));
  CHECK(other.entropy_bits == doctest::Approx((2.0 + three_one) / 2));
}

TEST_CASE("C classes in equal numbers in a batch score log2(C) bits") {
  const std::vector<int64_t> labels = [] {
    std::vector<int64_t> cyclic(64);
    for (size_t r = 0; r < cyclic.size(); ++r) cyclic[r] = static_cast<int64_t>(r % 4);
    return cyclic;
  }();
  const BatchMixing mix = LabelMixingMeter(labels).MeasureOrder(Iota(64), 8);
  CHECK(mix.classes_per_batch == 4);
  CHECK(mix.entropy_bits == doctest::Approx(2.0));
}

TEST_CASE("the last short batch is left out unless it is the only one") {
  // Rows 0-7 in two batches of 4, one class each; rows 8-9 (labels 2, 3) would be a third.
  const std::vector<int64_t> labels{0, 0, 0, 0, 1, 1, 1, 1, 2, 3};
  const LabelMixingMeter meter(labels);
  const BatchMixing mix = meter.MeasureOrder(Iota(10), 4);
  CHECK(mix.classes_per_batch == 1);
  CHECK(mix.entropy_bits == 0);
  CHECK(meter.Measure(Iota(10), 4).batches == 2);
  // Three rows in batches of 8: the one batch is those three (labels 0, 0, 0 then 1, 2, 3).
  const std::vector<int64_t> three{7, 8, 9};
  CHECK(meter.MeasureOrder(three, 8).classes_per_batch == 3);
  CHECK(meter.MeasureOrder(three, 8).entropy_bits == doctest::Approx(std::log2(3.0)));
  CHECK(meter.Measure(three, 8).batches == 1);
}

TEST_CASE("any int64 labels are classes by value, whatever their range") {
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> wide{-5, 1'000'000'000'000'000, 7, -5, kLow, kHigh, 7, 7};
  const std::vector<int64_t> dense{1, 3, 2, 1, 0, 4, 2, 2};  // the same classes, renamed
  const LabelMixingMeter a(wide), b(dense);
  CHECK(a.classes() == 5);
  CHECK(b.classes() == 5);
  for (int64_t batch : {1, 2, 3, 8}) {
    CAPTURE(batch);
    CHECK(a.MeasureOrder(Iota(8), batch).classes_per_batch ==
          b.MeasureOrder(Iota(8), batch).classes_per_batch);
    CHECK(a.MeasureOrder(Iota(8), batch).entropy_bits ==
          doctest::Approx(b.MeasureOrder(Iota(8), batch).entropy_bits));
  }
  const std::vector<int64_t> extremes{kLow, kHigh, kLow, kHigh};
  CHECK(LabelMixingMeter(extremes).classes() == 2);
  CHECK(LabelMixingMeter(extremes).MeasureOrder(Iota(4), 2).entropy_bits == doctest::Approx(1));
}

TEST_CASE("class-sorted rows read in file order mix nothing; a shuffle of them mixes") {
  const std::vector<int64_t> labels = SortedLabels(8, 64);
  const LabelMixing mixing = LabelMixingMeter(labels).Measure(Iota(512), 16);
  CHECK(mixing.classes == 8);
  CHECK(mixing.batches == 32);
  CHECK(mixing.random_batches == 32);
  CHECK(mixing.order.classes_per_batch == 1);
  CHECK(mixing.order.entropy_bits == 0);
  CHECK(mixing.entropy_ratio == 0);
  // 16 draws from 8 equal classes: 8 (1 - (7/8)^16) = 7.2 classes expected, about 2.7 bits.
  CHECK(mixing.random.classes_per_batch > 6.5);
  CHECK(mixing.random.entropy_bits > 2.4);
  CHECK(mixing.random.entropy_bits < 3.0);
}

TEST_CASE("chunks:8 on a class-sorted file mixes a few classes; on a shuffled one, all") {
  const SampleGeometry geometry{5000, 50};  // 10 classes of 500, 100 chunks of 50
  const std::vector<int64_t> order =
      EpochOrder(geometry, SamplerOptions::Parse("chunks:8"), ShardOptions{}, 1, 0);
  std::vector<int64_t> labels = SortedLabels(10, 500);
  const LabelMixing sorted = LabelMixingMeter(labels).Measure(order, 64);
  SplitMix64 rng(9);
  Shuffle(std::span<int64_t>(labels), rng);
  const LabelMixing shuffled = LabelMixingMeter(labels).Measure(order, 64);
  MESSAGE("sorted: " << sorted.order.classes_per_batch << " classes, " << sorted.order.entropy_bits
                     << " bits, ratio " << sorted.entropy_ratio
                     << "; shuffled: " << shuffled.order.classes_per_batch << " classes, ratio "
                     << shuffled.entropy_ratio);
  // A window is 8 chunks from anywhere in the file, 400 rows of up to 8 classes.
  CHECK(sorted.order.classes_per_batch < 8);
  CHECK(sorted.entropy_ratio < 0.8);
  CHECK(MixesTooFewClasses(sorted));
  CHECK_FALSE(MixesTooFewClasses(shuffled));
  CHECK(shuffled.order.classes_per_batch > 9);
  CHECK(shuffled.entropy_ratio == doctest::Approx(1.0).epsilon(0.05));
  // Both compare with the same reference: a shuffle of the same rows.
  CHECK(sorted.random.classes_per_batch ==
        doctest::Approx(shuffled.random.classes_per_batch).epsilon(0.05));
}

TEST_CASE("orders are measured on their first kMeasuredRows rows, in whole batches") {
  std::vector<int64_t> labels(static_cast<size_t>(kMeasuredRows) + 1000, 0);
  std::fill(labels.begin() + kMeasuredRows, labels.end(), 1);  // beyond what is measured
  const LabelMixingMeter meter(labels);
  CHECK(meter.classes() == 2);
  const LabelMixing mixing = meter.Measure(Iota(static_cast<int64_t>(labels.size())), 256);
  CHECK(mixing.batches == kMeasuredRows / 256);
  CHECK(mixing.random_batches == kReferenceRows / 256);
  CHECK(mixing.classes == 1);
  CHECK(mixing.order.classes_per_batch == 1);
  // The reference draws its rows from all of the order's: a few batches hold label 1.
  CHECK(mixing.random.classes_per_batch > 1);
}

TEST_CASE("the window that mixes a class-sorted file is found by doubling, and it mixes") {
  const SampleGeometry geometry{6400, 20};  // 16 classes of 400, 320 chunks of 20
  const LabelMixingMeter meter(SortedLabels(16, 400));
  for (const std::string kind : {"chunks:8", "quasi:8"}) {
    CAPTURE(kind);
    const SamplerOptions sampler = SamplerOptions::Parse(kind);
    const std::vector<int64_t> order = EpochOrder(geometry, sampler, ShardOptions{}, 3, 0);
    const LabelMixing mixing = meter.Measure(order, 64);
    REQUIRE(MixesTooFewClasses(mixing));
    const std::optional<int64_t> window =
        meter.WindowThatMixes(geometry, sampler, 3, 64, mixing.random);
    REQUIRE(window.has_value());
    MESSAGE(kind << ": ratio " << mixing.entropy_ratio << ", mixes at W = " << *window);
    CHECK(*window > 8);
    const auto ratio_at = [&](int64_t w) {
      const std::vector<int64_t> at =
          EpochOrder(geometry, SamplerOptions{sampler.kind, w}, ShardOptions{}, 3, 0);
      return meter.MeasureOrder(at, 64).entropy_bits / mixing.random.entropy_bits;
    };
    CHECK(ratio_at(*window) >= kMinEntropyRatio);
    CHECK(ratio_at(*window / 2) < kMinEntropyRatio);
  }
  // A window holding every chunk is a global shuffle: nothing larger to try.
  const SamplerOptions whole{SamplerOptions::Kind::kChunks, 320};
  CHECK_FALSE(meter.WindowThatMixes(geometry, whole, 3, 64, BatchMixing{16, 4, 0}).has_value());
}

TEST_CASE("too few classes means below the bar by more than the noise, over 4 batches") {
  LabelMixing mixing;
  mixing.batches = mixing.random_batches = 100;
  mixing.random = BatchMixing{10, 3.3, 0.05};
  mixing.order = BatchMixing{4, 2.0, 0.3};
  mixing.entropy_ratio = 2.0 / 3.3;
  CHECK(MixesTooFewClasses(mixing));
  LabelMixing noisy = mixing;         // the same means from batches whose entropy varies a lot
  noisy.order.entropy_sd_bits = 2.5;  // 5 standard errors: 5 x sqrt(2 x 2.5^2 / 100) = 1.77
  noisy.random.entropy_sd_bits = 2.5;
  CHECK_FALSE(MixesTooFewClasses(noisy));
  LabelMixing few = mixing;
  few.batches = 3;
  CHECK_FALSE(MixesTooFewClasses(few));
  few.batches = 100;
  few.random_batches = 3;
  CHECK_FALSE(MixesTooFewClasses(few));
  LabelMixing near = mixing;
  near.order.entropy_bits = 2.9;
  near.entropy_ratio = 2.9 / 3.3;  // 0.88: above the bar, however certain
  CHECK_FALSE(MixesTooFewClasses(near));
}

TEST_CASE("one class, or batches of one row, leave nothing to compare") {
  const std::vector<int64_t> one_class(100, 3);
  const LabelMixing single = LabelMixingMeter(one_class).Measure(Iota(100), 10);
  CHECK(single.classes == 1);
  CHECK(single.order.classes_per_batch == 1);
  CHECK(single.random.entropy_bits == 0);
  CHECK(single.entropy_ratio == 1);
  const LabelMixing rows = LabelMixingMeter(SortedLabels(4, 25)).Measure(Iota(100), 1);
  CHECK(rows.entropy_ratio == 1);
}

TEST_CASE("classes counts the labels of the order's rows only") {
  const LabelMixingMeter meter(SortedLabels(10, 10));
  const std::vector<int64_t> first_two_classes = Iota(20);
  CHECK(meter.classes() == 10);
  CHECK(meter.Measure(first_two_classes, 5).classes == 2);
}

TEST_CASE("the measure is the same on every call") {
  const std::vector<int64_t> labels = SortedLabels(16, 100);
  const std::vector<int64_t> order = Permutation(1600, 4);
  const LabelMixingMeter meter(labels);
  const LabelMixing first = meter.Measure(order, 32);
  const LabelMixing second = meter.Measure(order, 32);
  CHECK(first.random.entropy_bits == second.random.entropy_bits);
  CHECK(first.entropy_ratio == second.entropy_ratio);
}

TEST_CASE("a bad batch size, an empty order or a row without a label are invalid arguments") {
  const LabelMixingMeter meter(SortedLabels(2, 4));
  const std::vector<int64_t> empty;
  CHECK(testing::CodeOf([&] { meter.MeasureOrder(Iota(8), 0); }) == ErrorCode::kInvalidArgument);
  CHECK(testing::CodeOf([&] { meter.Measure(empty, 4); }) == ErrorCode::kInvalidArgument);
  std::string message;
  const std::vector<int64_t> beyond{0, 1, 8, 2};
  CHECK(testing::CodeOf([&] { meter.Measure(beyond, 2); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("row 8 at position 2") != std::string::npos);
  CHECK(message.find("rows 0 to 7") != std::string::npos);
  const std::vector<int64_t> negative{-1, 0};
  CHECK(testing::CodeOf([&] { meter.MeasureOrder(negative, 2); }) == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace h5feed::sampler
