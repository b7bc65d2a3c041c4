#include "bench/recommendation.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "fixed_rows.h"

namespace h5feed::bench {
namespace {

using testing::Row;
using testing::SmallSweep;

TEST_CASE(
    "the fastest run above the shuffle-quality bar is recommended, against defaults, "
    "random and the references") {
  const std::vector<SweepRow> rows = SmallSweep();
  const Recommendation r = Recommend(rows);
  REQUIRE(r.best);
  CHECK(*r.best == 1);  // 3000 images/s at 0.93; row 3 is faster but only 0.85 random
  CHECK(r.quality_met);
  REQUIRE(r.defaults);
  CHECK(*r.defaults == 4);
  REQUIRE(r.random);
  CHECK(*r.random == 0);  // same file (16, none) and cache (256)
  REQUIRE(r.fastest_random);
  CHECK(*r.fastest_random == 0);
  REQUIRE(r.best_reference);
  CHECK(*r.best_reference == 6);
  CHECK(Speedup(rows, r.best, r.defaults) == doctest::Approx(1.5));
  CHECK(Speedup(rows, r.best, r.random) == doctest::Approx(3.0));
  CHECK(Speedup(rows, r.best, r.best_reference) == doctest::Approx(6.0));

  const std::string text = DescribeRecommendation(rows, r);
  CHECK(text.find("--chunk 16 --compression none") != std::string::npos);
  CHECK(text.find("cache 256 MiB with the chunks:4 sampler") != std::string::npos);
  CHECK(text.find("3000 images/s") != std::string::npos);
  CHECK(text.find("1.50x the speed of the defaults") != std::string::npos);
  CHECK(text.find("3.00x the speed of the random sampler") != std::string::npos);
  CHECK(text.find("6.00x the speed of the fastest PyTorch DataLoader") != std::string::npos);
}

TEST_CASE("a run on a file that fits the page cache wins over one up to 30% faster that does not") {
  std::vector<SweepRow> rows = {Row(64, "none", 256, "chunks:8", 1250, 0.95),    // 0: no fit
                                Row(64, "none", 256, "chunks:8", 1000, 0.95),    // 1: fits
                                Row(64, "none", 256, "chunks:16", 2000, 0.98)};  // 2: no fit
  rows[0].encoding = "raw";
  rows[0].fits_page_cache = "no";
  rows[1].encoding = "jpeg:90";
  rows[1].fits_page_cache = "yes";
  rows[2].fits_page_cache = "no";
  {
    const std::vector<SweepRow> close(rows.begin(), rows.begin() + 2);
    const Recommendation r = Recommend(close);
    REQUIRE(r.best);
    CHECK(*r.best == 1);  // 1250 is within 30% of 1000, but its file is read from disk
    REQUIRE(r.beyond_page_cache);
    CHECK(*r.beyond_page_cache == 0);
    CHECK(DescribeRecommendation(close, r).find("page cache") != std::string::npos);
  }
  const Recommendation r = Recommend(rows);  // 2000 is twice 1000: the faster file wins
  REQUIRE(r.best);
  CHECK(*r.best == 2);
}

TEST_CASE("a cold run's recommendation says what share of the disk's rate it read") {
  std::vector<SweepRow> rows = SmallSweep();
  const std::string warm = DescribeRecommendation(rows, Recommend(rows));
  CHECK(warm.find("disk") == std::string::npos);
  for (SweepRow& row : rows) {
    row.disk_mb_per_s = 800;
    row.fraction_of_disk = 0.6;
  }
  const std::string cold = DescribeRecommendation(rows, Recommend(rows));
  CHECK(cold.find(", 0.60 of the disk's rate for its file (800 MB/s, read cold)") !=
        std::string::npos);
}

TEST_CASE("a lower bar admits the faster, less random run") {
  const std::vector<SweepRow> rows = SmallSweep();
  RecommendOptions options;
  options.min_shuffle_quality = 0.8;
  const Recommendation r = Recommend(rows, options);
  REQUIRE(r.best);
  CHECK(*r.best == 3);
  REQUIRE(r.random);
  CHECK(*r.random == 2);
  CHECK(Speedup(rows, r.best, r.random) == doctest::Approx(5000.0 / 800));
}

TEST_CASE("runs within the tie share are ties: the more random one, then the smaller cache, wins") {
  std::vector<SweepRow> rows = {Row(16, "none", 1024, "chunks:4", 1000, 0.92),
                                Row(16, "none", 1024, "chunks:16", 990, 0.98),
                                Row(16, "none", 256, "chunks:16", 985, 0.98),
                                Row(16, "none", 256, "quasi:8", 900, 0.99)};  // not a tie
  const Recommendation r = Recommend(rows);
  REQUIRE(r.best);
  CHECK(*r.best == 2);
  RecommendOptions no_ties;
  no_ties.tie_share = 0;
  CHECK(*Recommend(rows, no_ties).best == 0);
}

TEST_CASE("when no run reaches the bar the most random one is recommended, and the text says so") {
  std::vector<SweepRow> rows = {Row(16, "none", 256, "chunks:1", 5000, 0.4),
                                Row(16, "none", 256, "chunks:2", 4000, 0.6)};
  const Recommendation r = Recommend(rows);
  REQUIRE(r.best);
  CHECK(*r.best == 1);
  CHECK_FALSE(r.quality_met);
  CHECK(DescribeRecommendation(rows, r).find("No run reached the shuffle-quality bar of 0.90") !=
        std::string::npos);
}

TEST_CASE("a run whose batches mix few classes is never recommended, however fast") {
  std::vector<SweepRow> rows = {Row(16, "none", 256, "chunks:8", 5000, 0.95),
                                Row(16, "none", 256, "chunks:64", 3000, 0.99),
                                Row(16, "none", 256, "random", 1000, 1.0)};
  rows[0].few_classes = true;  // a class-sorted file under chunks:8
  const Recommendation r = Recommend(rows);
  REQUIRE(r.best);
  CHECK(*r.best == 1);
  CHECK(r.quality_met);
  // When every run mixes few classes, the most random is named, with what to do.
  rows[1].few_classes = rows[2].few_classes = true;
  const Recommendation none = Recommend(rows);
  REQUIRE(none.best);
  CHECK(*none.best == 2);
  CHECK_FALSE(none.quality_met);
  const std::string text = DescribeRecommendation(rows, none);
  CHECK(text.find("with batches that mix the classes") != std::string::npos);
  CHECK(text.find("'h5feed rechunk FILE OUT --seed 0' writes a shuffled copy") !=
        std::string::npos);
  // A run that mixes the classes wins over a more random one that does not.
  rows[0].few_classes = false;
  rows[0].shuffle_quality = 0.5;
  rows[1].shuffle_quality = 0.6;
  CHECK(*Recommend(rows).best == 0);
}

TEST_CASE("failed runs and references are never recommended; nothing to recommend is said") {
  std::vector<SweepRow> rows = SmallSweep();
  for (SweepRow& row : rows) {
    if (row.kind != "reference") row.status = "failed";
  }
  const Recommendation r = Recommend(rows);
  CHECK_FALSE(r.best);
  CHECK_FALSE(r.defaults);
  CHECK(Speedup(rows, r.best, r.best_reference) == 0);
  CHECK(DescribeRecommendation(rows, r).find("No run succeeded") != std::string::npos);
}

TEST_CASE("a sweep whose every run failed says so with each reason and how many runs gave it") {
  std::vector<SweepRow> rows = SmallSweep();
  CHECK_FALSE(EveryRunFailed(rows));  // runs succeeded
  int failed = 0;
  int h5feed_runs = 0;
  for (SweepRow& row : rows) {
    if (row.kind == "reference") continue;
    ++h5feed_runs;
    row.status = "failed";
    row.error = ++failed % 2 ? "out of memory" : "file not found";
  }
  const std::optional<std::string> why = EveryRunFailed(rows);
  REQUIRE(why);
  CHECK(why->find("all " + std::to_string(h5feed_runs) + " runs failed") != std::string::npos);
  CHECK(why->find(std::to_string((h5feed_runs + 1) / 2) + " runs: out of memory") !=
        std::string::npos);
  CHECK(why->find("file not found") != std::string::npos);
  rows[0].status = "ok";  // one success is a sweep that measured something
  CHECK_FALSE(EveryRunFailed(rows));
  CHECK_FALSE(EveryRunFailed({}));
}

TEST_CASE("when the defaults win, the text says these are the defaults") {
  std::vector<SweepRow> rows = {Row(36, "zstd:3", 512, "chunks:8", 3000, 0.95),
                                Row(36, "zstd:3", 512, "random", 1000, 1.0)};
  rows[0].is_default = true;
  const Recommendation r = Recommend(rows);
  REQUIRE(r.best);
  CHECK(*r.best == 0);
  const std::string text = DescribeRecommendation(rows, r);
  CHECK(text.find("These are h5feed's defaults") != std::string::npos);
  CHECK(text.find("3.00x the speed of the random sampler") != std::string::npos);
}

TEST_CASE("ranking puts successful runs first, fastest first") {
  const std::vector<SweepRow> rows = SmallSweep();
  const std::vector<size_t> order = RankRows(rows);
  CHECK(order == std::vector<size_t>{3, 1, 4, 0, 2, 6, 5});
}

}  // namespace
}  // namespace h5feed::bench
