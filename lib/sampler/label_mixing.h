#pragma once
// How well an epoch order mixes the classes in its batches, against a random order of the same
// rows. Index distances (shuffle_quality.h) cannot see this: a file whose rows are stored
// sorted by label (written by walking class folders in order) read by chunks:8 gets batches
// of a few classes, however random the row distances look, and training on such batches goes
// wrong without any error.
//
// The labels are small (8 bytes a row) and in memory at Open, so the figures come from the
// real orders (the sampler's, and a shuffle of its rows), not from a model. One pass over
// the labels, then at most kMeasuredRows rows of the order and kReferenceRows of the shuffle:
// about the time of one EpochOrder of chunks:8 (docs/reader.md, "Label mixing";
// bench/label_mixing_bench).

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "sampler/epoch_order.h"

namespace h5feed::sampler {

// What the batches of one order hold, averaged over its batches.
struct BatchMixing {
  // Distinct labels among a batch's rows.
  double classes_per_batch = 0;
  // The Shannon entropy, in bits, of the labels of a batch: -sum p_c log2 p_c over the share
  // p_c of the batch's rows that have label c. 0 when a batch is one class; log2(C) when it
  // holds C classes in equal numbers; at most log2(batch).
  double entropy_bits = 0;
  // The standard deviation of a batch's entropy over the batches measured (0 with one
  // batch): what tells a real difference between two orders from the noise of small batches.
  double entropy_sd_bits = 0;
};

struct LabelMixing {
  int64_t classes = 0;  // distinct labels among the order's rows measured
  int64_t batches = 0;  // batches of the order measured
  BatchMixing order;    // the order measured
  // The first batches of a shuffle of all the order's rows with a fixed seed (the random
  // sampler's order of them), measured the same way, over at most kReferenceRows rows: a
  // random order's batches are alike, so fewer of them give its figure as precisely.
  BatchMixing random;
  int64_t random_batches = 0;
  // order.entropy_bits / random.entropy_bits: about 1 when the order's batches mix classes as
  // a random order's do (any sampler on a file stored shuffled), near 0 when each batch is one
  // class. 1 when the random order's batches hold one class each (a single class, or batches
  // of one row): nothing to compare.
  double entropy_ratio = 1;
};

// Orders are measured on their first kMeasuredRows rows (whole batches, at least one): a
// chunk-aware order is the same process from start to end, and 2^18 rows are 1,024 batches of
// 256, enough for the figures to settle to a few thousandths.
inline constexpr int64_t kMeasuredRows = int64_t{1} << 18;
inline constexpr int64_t kReferenceRows = int64_t{1} << 16;

// The bar: batches carrying less than this share of a random order's label entropy mix too few
// classes. Class-sorted files read by chunks:8 measure 0.39-0.50 with 1,000 classes and
// 0.72-0.79 with 10 (6 of the 10 classes in a batch); with 2 or 4 classes 0.86-0.90, every
// batch holding every class. Files stored shuffled measure 1.00 +- noise under every sampler
// (docs/reader.md, "Label mixing"; bench/label_mixing_bench).
inline constexpr double kMinEntropyRatio = 0.85;
// How far below the random order's entropy an order must lie, in standard errors of the
// difference of the two means, before it counts. The batch-to-batch noise of small batches
// crosses the bar by chance: without this rule 333 of 6,000 shuffled files of 40 rows in
// batches of 5 would warn; at 3 standard errors about 1 in 1,000 tiny files still did; at 5
// none of 18,000 (16 to 2,048 rows, batches of 2 to 128).
inline constexpr double kStandardErrors = 5;

// The labels of a dataset's rows, ready to measure orders with. Labels may be any int64
// values (foreign files store anything); they are mapped once to dense ids.
//
// Immutable after construction; Measure and MeasureOrder may be called from several threads.
class LabelMixingMeter {
 public:
  // labels[r] is the label of dataset row r. At most kMaxRows rows (ids are 4 bytes, half the
  // memory traffic of the labels): Error(kInvalidArgument) beyond.
  explicit LabelMixingMeter(std::span<const int64_t> labels);
  static constexpr int64_t kMaxRows = std::numeric_limits<int32_t>::max();

  int64_t rows() const { return static_cast<int64_t>(ids_.size()); }
  // Distinct labels among all rows.
  int64_t classes() const { return classes_; }

  // The first batches of `order` (dataset rows) in groups of `batch_size`, up to kMeasuredRows
  // rows. A last, shorter batch is left out unless it is the only one: it would lower both
  // orders' figures by an amount that depends on its length alone. Throws
  // Error(kInvalidArgument) on batch_size < 1, an empty order or a row outside [0, rows()).
  BatchMixing MeasureOrder(std::span<const int64_t> order, int64_t batch_size) const;

  // MeasureOrder of `order` and of a shuffle of its rows (fixed seed, so the figure is the same
  // on every run), and their ratio. Throws as MeasureOrder does.
  LabelMixing Measure(std::span<const int64_t> order, int64_t batch_size) const;

  // The smallest window W above sampler.window, doubling up to the chunk count, at which the
  // sampler's kind (chunks or quasi) reaches kMinEntropyRatio of `random` (the figure of the
  // random order to reach). Each W is measured on the order of a share of the epoch (a block
  // of the shuffled chunk order, max(kMeasuredRows, W chunks' rows) rows: the same windows as the
  // whole epoch's, for a fraction of the cost). nullopt when none does.
  std::optional<int64_t> WindowThatMixes(const SampleGeometry& geometry,
                                         const SamplerOptions& sampler, uint64_t seed,
                                         int64_t batch_size, const BatchMixing& random) const;

 private:
  // The dense ids of `order`'s rows; throws Error(kInvalidArgument) for a row without a label.
  std::vector<int32_t> IdsOf(std::span<const int64_t> order) const;
  // The figures of consecutive batches of `batch` ids (ids.size() a multiple of it).
  BatchMixing MeasureIds(std::span<const int32_t> ids, size_t batch) const;

  std::vector<int32_t> ids_;  // dense id of each row's label, 0 .. id_count_ - 1
  int64_t id_count_ = 0;      // size of the id space (may exceed classes_: unused ids)
  int64_t classes_ = 0;
};

// Whether `mixing`'s batches hold fewer classes than a random order's beyond doubt: an entropy
// ratio below kMinEntropyRatio by more than kStandardErrors standard errors, over at least 4
// batches of each order.
bool MixesTooFewClasses(const LabelMixing& mixing);

}  // namespace h5feed::sampler
