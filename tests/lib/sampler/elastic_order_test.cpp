// Elastic orders against the plain ones: N ranks read part of an epoch by EpochOrder, M ranks
// read the rest by ElasticOrder, and together they deliver every row of the epoch once (but for
// the documented repeats and omissions), in equal counts, reading each chunk about once.

#include "sampler/elastic_order.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "open_chunks.h"
#include "sampler/epoch_steps.h"

namespace h5feed::sampler {
namespace {

using Kind = SamplerOptions::Kind;
using Rows = std::vector<int64_t>;
using Counts = std::map<int64_t, int64_t>;  // row -> deliveries

constexpr uint64_t kSeed = 29;

std::vector<SamplerOptions> AllSamplers() {
  return {{Kind::kSequential, 8}, {Kind::kRandom, 8}, {Kind::kChunks, 1},
          {Kind::kChunks, 3},     {Kind::kQuasi, 1},  {Kind::kQuasi, 3}};
}

// (samples, chunk_samples): chunk-aligned and not, one chunk, tiny files, fewer rows than
// ranks.
std::vector<SampleGeometry> AllGeometries() {
  return {{3, 2}, {17, 4}, {37, 37}, {101, 10}, {203, 16}, {640, 16}};
}

struct Case {
  SampleGeometry geometry;
  SamplerOptions sampler;
  bool drop_last = false;
  StepRules rules;
  int64_t epoch = 0;

  std::string Describe() const {
    return "N=" + std::to_string(geometry.samples()) + " K=" + std::to_string(geometry.max_rows()) +
           " " + sampler.ToString() + (drop_last ? " drop_last" : "") + " batch " +
           std::to_string(rules.batch_size) + (rules.drop_last_batch ? " drop_last_batch" : "") +
           " echo " + std::to_string(rules.echo) + " epoch " + std::to_string(epoch);
  }
};

// What a rank's order holds in steps: the loaded rows a delivered step count covers (a step
// whose echo copies are not all delivered counts) and the rows it delivers at all.
struct Cut {
  int64_t consumed = 0;
  int64_t rows = 0;
  int64_t delivered_steps = 0;
};

Cut CutOf(const Case& c, int64_t order_rows, int64_t steps) {
  const EpochSteps cut =
      CutIntoSteps(order_rows, c.rules.batch_size, c.rules.drop_last_batch, c.rules.echo);
  const int64_t loaded = (steps + c.rules.echo - 1) / c.rules.echo;
  return Cut{std::min(loaded * c.rules.batch_size, cut.rows), cut.rows, cut.delivered()};
}

std::vector<Rows> PlainOrders(const Case& c, int world) {
  std::vector<Rows> orders;
  for (int rank = 0; rank < world; ++rank) {
    orders.push_back(EpochOrder(c.geometry, c.sampler, {rank, world, c.drop_last}, kSeed, c.epoch));
  }
  return orders;
}

std::vector<Rows> ElasticOrders(const Case& c, int world,
                                const std::vector<EpochStretch>& stretches) {
  std::vector<Rows> orders;
  for (int rank = 0; rank < world; ++rank) {
    orders.push_back(ElasticOrder(c.geometry, c.sampler, {rank, world, c.drop_last}, kSeed, c.epoch,
                                  c.rules, stretches));
  }
  return orders;
}

// Positions [from, to) of every order, counted.
void Count(const std::vector<Rows>& orders, int64_t from, int64_t to, Counts& counts) {
  for (const Rows& order : orders) {
    for (int64_t i = from; i < to; ++i) ++counts[order[static_cast<size_t>(i)]];
  }
}

int64_t DistinctChunks(const Rows& rows, int64_t chunk_samples) {
  std::set<int64_t> chunks;
  for (int64_t row : rows) chunks.insert(row / chunk_samples);
  return static_cast<int64_t>(chunks.size());
}

// The step counts worth stopping at: the first, the middle, the last but one, the last.
std::vector<int64_t> StopsIn(int64_t delivered_steps) {
  std::set<int64_t> stops{1, delivered_steps / 2, delivered_steps - 1, delivered_steps};
  std::vector<int64_t> valid;
  for (int64_t stop : stops) {
    if (stop >= 1 && stop <= delivered_steps) valid.push_back(stop);
  }
  return valid;
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const SampleGeometry& g : AllGeometries()) {
    for (const SamplerOptions& s : AllSamplers()) {
      for (bool drop_last : {false, true}) {
        for (StepRules rules : {StepRules{4, false, 1}, StepRules{5, true, 1},
                                StepRules{3, false, 2}, StepRules{7, true, 3}}) {
          cases.push_back(Case{g, s, drop_last, rules, g.samples() % 3 == 0 ? -1 : 5});
        }
      }
    }
  }
  return cases;
}

// The rows the old ranks had still to deliver at the stop, each once: a row of the old deal's
// padding that one of them had already delivered is not among them.
Counts Remaining(const std::vector<Rows>& before, const Cut& cut) {
  Counts delivered, remaining;
  Count(before, 0, cut.consumed, delivered);
  Count(before, cut.consumed, cut.rows, remaining);
  for (auto row = remaining.begin(); row != remaining.end();) {
    row = delivered.count(row->first) ? remaining.erase(row) : std::next(row);
  }
  for (auto& [row, n] : remaining) n = 1;
  return remaining;
}

// After `stop` steps of the orders `before` (one a rank), the rest of the epoch on new_world
// ranks: equal counts, each remaining row once, and only the new deal's padding repeated (or,
// with drop_last, its omissions), at most new_world - 1 rows, distinct ones while there are
// enough rows left.
void CheckRestOnce(const Case& c, const std::vector<Rows>& before, int64_t stop, int new_world) {
  const auto old_world = static_cast<int>(before.size());
  const Cut cut = CutOf(c, static_cast<int64_t>(before[0].size()), stop);
  const Counts remaining = Remaining(before, cut);
  const auto remaining_rows = static_cast<int64_t>(remaining.size());
  INFO(c.Describe() << " ranks " << old_world << " -> " << new_world << " after " << stop
                    << " steps");
  const std::vector<Rows> after = ElasticOrders(c, new_world, {{old_world, stop}});
  const int64_t share =
      c.drop_last ? remaining_rows / new_world : (remaining_rows + new_world - 1) / new_world;
  for (const Rows& order : after) CHECK(static_cast<int64_t>(order.size()) == share);
  Counts dealt;
  Count(after, 0, share, dealt);
  int64_t extra = 0, most = 0;
  for (const auto& [row, n] : dealt) {
    REQUIRE(remaining.count(row) == 1);
    extra += n - 1;
    most = std::max(most, n);
  }
  const int64_t missing = remaining_rows - static_cast<int64_t>(dealt.size());
  CHECK(extra == (c.drop_last ? 0 : share * new_world - remaining_rows));
  CHECK(missing == (c.drop_last ? remaining_rows - share * new_world : 0));
  CHECK(extra < new_world);
  CHECK(missing < new_world);
  if (extra <= remaining_rows) CHECK(most <= 2);
  if (!c.drop_last && !c.rules.drop_last_batch) {  // every row of the epoch, before or after
    Counts epoch = dealt;
    Count(before, 0, cut.consumed, epoch);
    CHECK(static_cast<int64_t>(epoch.size()) == c.geometry.samples());
  }
}

TEST_CASE("N ranks, then M ranks: the rest of the epoch comes exactly once, in equal counts") {
  for (const Case& c : AllCases()) {
    for (int old_world = 1; old_world <= 4; ++old_world) {
      if (c.drop_last && c.geometry.samples() < old_world) continue;  // no such job
      const std::vector<Rows> before = PlainOrders(c, old_world);
      const Cut whole = CutOf(c, static_cast<int64_t>(before[0].size()), 0);
      for (int64_t stop : StopsIn(whole.delivered_steps)) {
        for (int new_world = 1; new_world <= 5; ++new_world) {
          if (c.drop_last && c.geometry.samples() < new_world) continue;
          CheckRestOnce(c, before, stop, new_world);
        }
      }
    }
  }
}

TEST_CASE("the old world size's padding is not delivered again after a change of world size") {
  // The old deal pads each epoch here (no world size below divides the samples), and a stop at
  // every step catches its padding delivered, left, and split between the two.
  for (const SampleGeometry& geometry : {SampleGeometry{205, 16}, SampleGeometry{1003, 32}}) {
    for (const SamplerOptions& sampler :
         {SamplerOptions{Kind::kSequential, 8}, SamplerOptions{Kind::kQuasi, 2},
          SamplerOptions{Kind::kQuasi, 3}, SamplerOptions{Kind::kChunks, 2},
          SamplerOptions{Kind::kRandom, 8}}) {
      for (StepRules rules : {StepRules{8, false, 1}, StepRules{5, true, 1}}) {
        const Case c{geometry, sampler, false, rules, 1};
        for (const auto& [old_world, new_world] :
             std::vector<std::pair<int, int>>{{2, 3}, {2, 7}, {4, 3}, {3, 2}, {7, 2}}) {
          const std::vector<Rows> before = PlainOrders(c, old_world);
          const Cut whole = CutOf(c, static_cast<int64_t>(before[0].size()), 0);
          for (int64_t stop = 1; stop <= whole.delivered_steps; ++stop) {
            CheckRestOnce(c, before, stop, new_world);
          }
        }
      }
    }
  }
}

TEST_CASE("the new ranks read each chunk of the rest about once, within the sampler's window") {
  for (const Case& c : AllCases()) {
    if (c.sampler.kind == Kind::kRandom) continue;
    const int64_t k = c.geometry.max_rows();
    const int64_t cache = UsesWindow(c.sampler) ? c.sampler.window : 1;
    for (int old_world : {1, 3, 4}) {
      if (c.drop_last && c.geometry.samples() < old_world) continue;
      const std::vector<Rows> before = PlainOrders(c, old_world);
      const Cut whole = CutOf(c, static_cast<int64_t>(before[0].size()), 0);
      for (int64_t stop : StopsIn(whole.delivered_steps)) {
        const Cut cut = CutOf(c, static_cast<int64_t>(before[0].size()), stop);
        Rows left, read_before;
        for (const Rows& order : before) {
          left.insert(left.end(), order.begin() + cut.consumed, order.begin() + cut.rows);
          read_before.insert(read_before.end(), order.begin(), order.begin() + cut.consumed);
        }
        for (int new_world : {1, 2, 3, 5}) {
          if (c.drop_last && c.geometry.samples() < new_world) continue;
          INFO(c.Describe() << " ranks " << old_world << " -> " << new_world << " after " << stop
                            << " steps");
          int64_t chunks_after = 0;
          for (const Rows& order : ElasticOrders(c, new_world, {{old_world, stop}})) {
            // A cache of the window's chunks reads each of the rank's chunks once.
            CHECK(MaxOpenChunks(order, k) <= cache);
            chunks_after += DistinctChunks(order, k);
          }
          // The ranks share at most the chunks at the edges of their blocks (and a wrap of
          // the padding).
          CHECK(chunks_after <= DistinctChunks(left, k) + 2 * new_world);
          // The whole epoch: each chunk about once, plus the chunks the old ranks had begun.
          int64_t chunks_before = 0;
          for (const Rows& order : before) {
            chunks_before += DistinctChunks(Rows(order.begin(), order.begin() + cut.consumed), k);
          }
          CHECK(chunks_before + chunks_after <=
                c.geometry.chunks() + old_world * (cache + 2) + 2 * new_world);
        }
      }
    }
  }
}

TEST_CASE("several changes of world size in one epoch still deliver each row once") {
  for (const Case& c : AllCases()) {
    const bool repeats = !c.drop_last;
    const bool omits = c.drop_last || c.rules.drop_last_batch;
    for (const std::vector<int>& worlds :
         {std::vector<int>{2, 3, 1}, std::vector<int>{4, 2, 5}, std::vector<int>{3, 3, 2}}) {
      if (c.drop_last && c.geometry.samples() < 5) continue;
      INFO(c.Describe() << " ranks " << worlds[0] << " -> " << worlds[1] << " -> " << worlds[2]);
      Counts delivered;
      std::vector<EpochStretch> stretches;
      std::vector<Rows> orders = PlainOrders(c, worlds[0]);
      for (size_t j = 0; j < worlds.size(); ++j) {
        const Cut whole = CutOf(c, static_cast<int64_t>(orders[0].size()), 0);
        // Stop a third of the way through each stretch but the last, which runs to its end.
        const int64_t stop = j + 1 < worlds.size() ? whole.delivered_steps / 3 : 0;
        const Cut cut = CutOf(c, static_cast<int64_t>(orders[0].size()), stop);
        Count(orders, 0, j + 1 < worlds.size() ? cut.consumed : whole.rows, delivered);
        if (j + 1 == worlds.size()) break;
        if (stop >= 1) stretches.push_back({worlds[j], stop});
        orders = stretches.empty() ? PlainOrders(c, worlds[j + 1])
                                   : ElasticOrders(c, worlds[j + 1], stretches);
        for (const Rows& order : orders) CHECK(order.size() == orders[0].size());
      }
      int64_t repeated = 0;
      for (const auto& [row, n] : delivered) repeated += n - 1;
      const int64_t most_repeats = (worlds[0] - 1) + (worlds[1] - 1) + (worlds[2] - 1);
      if (!repeats) CHECK(repeated == 0);
      if (repeats) CHECK(repeated <= most_repeats);
      if (!omits) CHECK(static_cast<int64_t>(delivered.size()) == c.geometry.samples());
    }
  }
}

TEST_CASE("a stretch that delivered its whole share leaves nothing for the new ranks") {
  const Case c{{203, 16}, {Kind::kChunks, 3}, false, {10, false, 1}, 2};
  const std::vector<Rows> before = PlainOrders(c, 3);
  const int64_t steps = CutOf(c, static_cast<int64_t>(before[0].size()), 0).delivered_steps;
  for (const Rows& order : ElasticOrders(c, 2, {{3, steps}})) CHECK(order.empty());
}

TEST_CASE("elastic orders are a pure function of their arguments; the history changes them") {
  const Case c{{640, 16}, {Kind::kQuasi, 3}, false, {8, false, 1}, 4};
  const Rows once = ElasticOrder(c.geometry, c.sampler, {1, 3}, kSeed, 4, c.rules, {{{2, 5}}});
  CHECK(once == ElasticOrder(c.geometry, c.sampler, {1, 3}, kSeed, 4, c.rules, {{{2, 5}}}));
  CHECK(once != ElasticOrder(c.geometry, c.sampler, {1, 3}, kSeed, 4, c.rules, {{{2, 6}}}));
  CHECK(once != ElasticOrder(c.geometry, c.sampler, {1, 3}, kSeed, 5, c.rules, {{{2, 5}}}));
  CHECK(once != ElasticOrder(c.geometry, c.sampler, {1, 3}, kSeed + 1, 4, c.rules, {{{2, 5}}}));
}

TEST_CASE("a stretch longer than its ranks' share, or an empty one, is refused by name") {
  const Case c{{203, 16}, {Kind::kRandom, 8}, false, {10, false, 1}, 0};
  const std::vector<EpochStretch> too_long{{2, 5}, {3, 30}};
  try {
    ElasticOrder(c.geometry, c.sampler, {0, 2}, kSeed, 0, c.rules, too_long);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()).find("stretch 1") != std::string::npos);
    CHECK(std::string(error.what()).find("3 ranks for 30 steps") != std::string::npos);
  }
  const std::vector<EpochStretch> empty{{2, 0}};
  CHECK_THROWS_AS(ElasticOrder(c.geometry, c.sampler, {0, 2}, kSeed, 0, c.rules, empty), Error);
  const std::vector<EpochStretch> no_ranks{{0, 3}};
  CHECK_THROWS_AS(ElasticOrder(c.geometry, c.sampler, {0, 2}, kSeed, 0, c.rules, no_ranks), Error);
  CHECK_THROWS_AS(ElasticOrder(c.geometry, c.sampler, {0, 2}, kSeed, 0, c.rules, {}), Error);
  CHECK_THROWS_AS(ElasticOrder(c.geometry, c.sampler, {2, 2}, kSeed, 0, c.rules, {{{2, 1}}}),
                  Error);
}

}  // namespace
}  // namespace h5feed::sampler
