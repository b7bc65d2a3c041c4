// ElasticOrder (sampler/elastic_order.h).

#include "sampler/elastic_order.h"

#include <algorithm>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "sampler/epoch_steps.h"
#include "sampler/rank_block.h"

namespace h5feed::sampler {
namespace {

using Kind = SamplerOptions::Kind;
using transform::RandomStream;

template <typename... Args>
[[noreturn]] void RejectElastic(fmt::format_string<Args...> format, Args&&... args) {
  throw MakeError(ErrorCode::kInvalidArgument, "elastic order: {}",
                  fmt::format(format, std::forward<Args>(args)...));
}

// A sequence held as pieces: stretches of entries whose values are consecutive and whose rows
// lie in one chunk. A chunk-aware sequence's values are rows, and its global sequence is one
// piece a chunk; random's are indices into the epoch's permutation, and its global sequence is
// one piece. A remainder keeps nearly every piece of the sequence it came from whole (only the
// windows or runs a cut split break up), so dealing one costs about its pieces plus the rows
// the new rank lists, not the rows of the whole epoch.
struct Piece {
  int64_t first = 0;
  int64_t count = 0;
  int64_t chunk = 0;  // random: always 0
};

class Sequence {
 public:
  int64_t length() const { return starts_.back(); }
  size_t pieces() const { return pieces_.size(); }
  const Piece& piece(size_t index) const { return pieces_[index]; }
  int64_t start(size_t index) const { return starts_[index]; }

  // The piece holding `position` (0 <= position < length()).
  size_t PieceAt(int64_t position) const {
    return static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), position) -
                               starts_.begin() - 1);
  }

  // Appends values first .. first + count - 1 of `chunk` (count >= 1), joining the last piece
  // when they continue it.
  void Append(int64_t first, int64_t count, int64_t chunk) {
    if (!pieces_.empty()) {
      Piece& last = pieces_.back();
      if (last.chunk == chunk && last.first + last.count == first) {
        last.count += count;
        starts_.back() += count;
        return;
      }
    }
    pieces_.push_back(Piece{first, count, chunk});
    starts_.push_back(length() + count);
  }

 private:
  std::vector<Piece> pieces_;
  std::vector<int64_t> starts_{0};  // starts_[i]: the position of piece i; the last: length()
};

// Calls visit(first, count, chunk) for positions [begin, begin + count) of `sequence`, repeated
// cyclically past its end (the padding), piece by piece. `sequence` must not be empty when
// count > 0.
template <typename Visit>
void ForEachPiece(const Sequence& sequence, int64_t begin, int64_t count, Visit&& visit) {
  if (count <= 0) return;
  const int64_t position = begin % sequence.length();
  size_t index = sequence.PieceAt(position);
  int64_t within = position - sequence.start(index);
  while (count > 0) {
    const Piece& piece = sequence.piece(index);
    const int64_t take = std::min(count, piece.count - within);
    visit(piece.first + within, take, piece.chunk);
    count -= take;
    within = 0;
    if (++index == sequence.pieces()) index = 0;
  }
}

// Appends positions [begin, end) of `from` (0 <= begin <= end <= from.length()) to `to`.
void AppendPositions(Sequence& to, const Sequence& from, int64_t begin, int64_t end) {
  ForEachPiece(from, begin, end - begin, [&](int64_t first, int64_t count, int64_t chunk) {
    to.Append(first, count, chunk);
  });
}

// What every deal of the epoch shares.
struct Epoch {
  const SampleGeometry& geometry;
  const SamplerOptions& sampler;
  bool drop_last;
  uint64_t seed;
  int64_t epoch;
  StepRules rules;
};

// One stretch: `sequence` dealt to `world_size` ranks, per_rank rows each. Position p of the
// dealt sequence (0 <= p < world_size * per_rank) is the sequence's position p mod its length:
// the positions past its end are the padding.
struct Deal {
  const Sequence& sequence;
  size_t stretch = 0;
  int world_size = 1;
  int64_t per_rank = 0;
};

Deal MakeDeal(const Epoch& epoch, const Sequence& sequence, size_t stretch, int world_size) {
  const int64_t length = sequence.length();
  const int64_t per_rank =
      epoch.drop_last ? length / world_size : (length + world_size - 1) / world_size;
  return Deal{sequence, stretch, world_size, per_rank};
}

// The epoch's global sequence (epoch_order.h), which stretch 0 deals: random's permutation (as
// indices into it), the chunk-aware samplers' rows chunk by chunk in the chunk order. Every
// remainder of a chunk-aware sequence keeps it sorted that way (see Remainder), so each chunk's
// rows stay together.
Sequence GlobalSequence(const Epoch& epoch) {
  Sequence sequence;
  if (epoch.sampler.kind == Kind::kRandom) {
    sequence.Append(0, epoch.geometry.samples(), 0);
    return sequence;
  }
  for (int64_t chunk : ChunkOrder(epoch.geometry, epoch.sampler, epoch.seed, epoch.epoch)) {
    sequence.Append(epoch.geometry.first_row(chunk), epoch.geometry.rows_in(chunk), chunk);
  }
  return sequence;
}

// The block of the dealt sequence rank `rank` takes in a chunk-aware deal (stretch 0 as
// EpochOrder: the block rotation of sequential), and the seed of its local shuffle.
int64_t BlockOf(const Epoch& epoch, const Deal& deal, int rank) {
  if (deal.stretch != 0) return rank;
  return BlockIndex(epoch.sampler, ShardOptions{rank, deal.world_size, epoch.drop_last},
                    epoch.epoch);
}
uint64_t LocalSeed(const Epoch& epoch, const Deal& deal, int rank) {
  const int64_t lane = (static_cast<int64_t>(deal.stretch) << 32) + rank;
  return StreamSeed(epoch.seed, epoch.epoch, RandomStream::kLocalShuffle, lane);
}

// How many entries each run of positions [begin, begin + count) of `sequence` holds (runs as
// in RankBlock: cut where the chunk changes, the wrap into the padding included).
std::vector<int64_t> RunLengths(const Sequence& sequence, int64_t begin, int64_t count) {
  std::vector<int64_t> lengths;
  int64_t previous_chunk = -1;
  ForEachPiece(sequence, begin, count, [&](int64_t, int64_t entries, int64_t chunk) {
    if (chunk != previous_chunk) lengths.push_back(0);
    lengths.back() += entries;
    previous_chunk = chunk;
  });
  return lengths;
}

// Rank `rank`'s rows in the chunk-aware `deal`, in its visiting order. Stretch 0 reproduces
// EpochOrder exactly.
std::vector<int64_t> ChunkAwareRows(const Epoch& epoch, const Deal& deal, int rank) {
  RankBlock block;
  block.entries.reserve(static_cast<size_t>(deal.per_rank));
  int64_t previous_chunk = -1;
  ForEachPiece(deal.sequence, BlockOf(epoch, deal, rank) * deal.per_rank, deal.per_rank,
               [&](int64_t first, int64_t count, int64_t chunk) {
                 if (chunk != previous_chunk) block.run_starts.push_back(block.entries.size());
                 previous_chunk = chunk;
                 for (int64_t row = first; row < first + count; ++row) {
                   block.entries.push_back(row);
                 }
               });
  block.run_starts.push_back(block.entries.size());
  return LocalOrder(std::move(block), epoch.sampler, LocalSeed(epoch, deal, rank));
}

// Rank `rank`'s rows in the random `deal`: positions rank, rank + W, ... of the dealt sequence.
std::vector<int64_t> RandomRows(const std::vector<int64_t>& permutation, const Deal& deal,
                                int rank) {
  const Sequence& sequence = deal.sequence;
  const int64_t length = sequence.length();
  std::vector<int64_t> rows(static_cast<size_t>(deal.per_rank));
  size_t index = 0;
  for (int64_t i = 0; i < deal.per_rank; ++i) {
    int64_t position = rank + i * deal.world_size;
    size_t at = index;
    if (position >= length) {
      position %= length;
      at = sequence.PieceAt(position);
    } else {
      while (sequence.start(index + 1) <= position) ++index;
      at = index;
    }
    const int64_t value = sequence.piece(at).first + (position - sequence.start(at));
    rows[static_cast<size_t>(i)] = permutation[static_cast<size_t>(value)];
  }
  return rows;
}

// What `deal` leaves of the epoch when each of its ranks delivered `steps` steps.
Sequence Remainder(const Epoch& epoch, const Deal& deal, int64_t steps) {
  const EpochSteps cut = CutIntoSteps(deal.per_rank, epoch.rules.batch_size,
                                      epoch.rules.drop_last_batch, epoch.rules.echo);
  if (steps > cut.delivered()) {
    RejectElastic(
        "stretch {} of the epoch ran on {} ranks for {} steps, but each of its ranks delivers only "
        "{} steps in it; the state does not belong to this file and these options",
        deal.stretch, deal.world_size, steps, cut.delivered());
  }
  const int64_t loaded = (steps + epoch.rules.echo - 1) / epoch.rules.echo;
  const int64_t consumed = std::min(loaded * epoch.rules.batch_size, cut.rows);
  const Sequence& sequence = deal.sequence;
  const int64_t length = sequence.length();
  Sequence rest;
  if (epoch.sampler.kind == Kind::kRandom) {
    // Rank r's positions i >= consumed are r + i * W: together the dealt sequence's suffix.
    const int64_t begin = consumed * deal.world_size;
    const int64_t end = cut.rows * deal.world_size;
    if (begin < std::min(end, length))
      AppendPositions(rest, sequence, begin, std::min(end, length));
    for (int64_t p = std::max(begin, length); p < end; ++p) {
      AppendPositions(rest, sequence, p % length, p % length + 1);
    }
    return rest;
  }
  if (consumed >= cut.rows) return rest;
  // The positions each rank has left (LocalOrderSlice of its block: the order's positions
  // [consumed, cut.rows)), listed in sequence order: the rows of a chunk that several old ranks
  // left come together. The ranks' blocks tile the dealt sequence in block order. Padding
  // positions (p >= length) repeat the position p mod length, and are listed just after it.
  std::vector<int> rank_of_block(static_cast<size_t>(deal.world_size));
  for (int rank = 0; rank < deal.world_size; ++rank) {
    rank_of_block[static_cast<size_t>(BlockOf(epoch, deal, rank))] = rank;
  }
  std::vector<OffsetSpan> left;  // positions, increasing
  std::vector<int64_t> repeats;
  for (int64_t block = 0; block < deal.world_size; ++block) {
    const int64_t first = block * deal.per_rank;
    const int rank = rank_of_block[static_cast<size_t>(block)];
    for (const OffsetSpan& span :
         LocalOrderSlice(RunLengths(sequence, first, deal.per_rank), epoch.sampler,
                         LocalSeed(epoch, deal, rank), consumed, cut.rows)) {
      const int64_t begin = first + span.begin;
      const int64_t end = first + span.end;
      if (begin < length) left.push_back(OffsetSpan{begin, std::min(end, length)});
      for (int64_t p = std::max(begin, length); p < end; ++p) repeats.push_back(p % length);
    }
  }
  std::sort(repeats.begin(), repeats.end());
  auto repeat = repeats.begin();
  for (OffsetSpan span : left) {
    for (; repeat != repeats.end() && *repeat < span.end; ++repeat) {
      if (*repeat >= span.begin) {
        AppendPositions(rest, sequence, span.begin, *repeat + 1);
        span.begin = *repeat + 1;
      }
      AppendPositions(rest, sequence, *repeat, *repeat + 1);
    }
    AppendPositions(rest, sequence, span.begin, span.end);
  }
  for (; repeat != repeats.end(); ++repeat) AppendPositions(rest, sequence, *repeat, *repeat + 1);
  return rest;
}

}  // namespace

std::vector<int64_t> ElasticOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                  const ShardOptions& shard, uint64_t seed, int64_t epoch,
                                  const StepRules& rules, std::span<const EpochStretch> stretches) {
  SamplesPerRank(geometry, shard);  // the checks of a plain order on the new shard
  if (sampler.window < 1) {
    RejectElastic("sampler {} has window {}; it must be at least 1", sampler.ToString(),
                  sampler.window);
  }
  CutIntoSteps(0, rules.batch_size, rules.drop_last_batch, rules.echo);  // checks the rules
  if (stretches.empty()) RejectElastic("no finished stretch: the epoch's plain order applies");
  for (size_t j = 0; j < stretches.size(); ++j) {
    if (stretches[j].world_size < 1 || stretches[j].steps < 1) {
      RejectElastic("stretch {} has world_size {} and {} steps; both must be at least 1", j,
                    stretches[j].world_size, stretches[j].steps);
    }
  }

  const Epoch context{geometry, sampler, shard.drop_last, seed, epoch, rules};
  Sequence sequence = GlobalSequence(context);
  for (size_t j = 0; j < stretches.size(); ++j) {
    sequence = Remainder(context, MakeDeal(context, sequence, j, stretches[j].world_size),
                         stretches[j].steps);
  }
  const Deal deal = MakeDeal(context, sequence, stretches.size(), shard.world_size);
  if (deal.per_rank == 0) return {};
  if (sampler.kind == Kind::kRandom) {
    return RandomRows(GlobalPermutation(geometry, seed, epoch), deal, shard.rank);
  }
  return ChunkAwareRows(context, deal, shard.rank);
}

}  // namespace h5feed::sampler
