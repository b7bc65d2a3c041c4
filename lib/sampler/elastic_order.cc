// ElasticOrder (sampler/elastic_order.h).

#include "sampler/elastic_order.h"

#include <algorithm>
#include <iterator>
#include <optional>
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

// Whether `offset` lies in one of `spans` (sorted, disjoint).
bool Holds(const std::vector<OffsetSpan>& spans, int64_t offset) {
  const auto after =
      std::upper_bound(spans.begin(), spans.end(), offset,
                       [](int64_t value, const OffsetSpan& span) { return value < span.begin; });
  return after != spans.begin() && offset < std::prev(after)->end;
}

// What a chunk-aware `deal` leaves when each of its ranks has delivered positions
// [0, consumed) of its order, out of the [0, rows) it would deliver in the stretch. The left
// positions (LocalOrderSlice of each rank's block) are listed in sequence order: the rows of a
// chunk that several old ranks left come together. The ranks' blocks tile the dealt sequence in
// block order.
//
// The padding (positions p >= length, repeating position p mod length) does not pass into the
// remainder: the remainder is a set of rows, each once, so that the next deal's own padding is
// the only repeat it brings. A padded row is done when any of its copies was delivered, and
// left, once, at its own position, when none was and one of them is left (a copy left out by
// drop_last_batch is neither).
Sequence ChunkAwareRemainder(const Epoch& epoch, const Deal& deal, int64_t consumed, int64_t rows) {
  const Sequence& sequence = deal.sequence;
  const int64_t length = sequence.length();
  const int64_t dealt = deal.world_size * deal.per_rank;
  const auto blocks = static_cast<size_t>(deal.world_size);
  std::vector<int> rank_of_block(blocks);
  for (int rank = 0; rank < deal.world_size; ++rank) {
    rank_of_block[static_cast<size_t>(BlockOf(epoch, deal, rank))] = rank;
  }
  // The offsets of block `block` that its rank's order places at [from, to).
  const auto slice = [&](size_t block, int64_t from, int64_t to) {
    return LocalOrderSlice(
        RunLengths(sequence, static_cast<int64_t>(block) * deal.per_rank, deal.per_rank),
        epoch.sampler, LocalSeed(epoch, deal, rank_of_block[block]), from, to);
  };
  std::vector<std::vector<OffsetSpan>> left(blocks);
  for (size_t block = 0; block < blocks; ++block) left[block] = slice(block, consumed, rows);

  // Only the few positions the padding touches need this; the offsets drop_last_batch leaves
  // out are sliced for their blocks alone, and only when there are any.
  enum class Status { kDelivered, kLeft, kLeftOut };
  std::vector<std::optional<std::vector<OffsetSpan>>> left_out(blocks);
  const auto status_of = [&](int64_t position) {
    const auto block = static_cast<size_t>(position / deal.per_rank);
    const int64_t offset = position % deal.per_rank;
    if (Holds(left[block], offset)) return Status::kLeft;
    if (rows == deal.per_rank) return Status::kDelivered;
    if (!left_out[block]) left_out[block] = slice(block, rows, deal.per_rank);
    return Holds(*left_out[block], offset) ? Status::kLeftOut : Status::kDelivered;
  };
  std::vector<int64_t> done;     // left at their own position, but delivered as padding
  std::vector<int64_t> revived;  // left only as padding, never delivered
  for (int64_t own = 0; own < std::min(length, dealt - length); ++own) {  // padded positions
    bool left_here = false;                                               // at its own position
    bool left_somewhere = false;
    bool delivered = false;
    for (int64_t copy = own; copy < dealt; copy += length) {
      const Status status = status_of(copy);
      left_here = left_here || (copy == own && status == Status::kLeft);
      left_somewhere = left_somewhere || status == Status::kLeft;
      delivered = delivered || status == Status::kDelivered;
    }
    const bool stays = left_somewhere && !delivered;
    if (left_here && !stays) done.push_back(own);
    if (!left_here && stays) revived.push_back(own);
  }

  Sequence rest;
  auto next_done = done.begin();
  auto next_revived = revived.begin();
  const auto revive_before = [&](int64_t position) {
    for (; next_revived != revived.end() && *next_revived < position; ++next_revived) {
      AppendPositions(rest, sequence, *next_revived, *next_revived + 1);
    }
  };
  for (size_t block = 0; block < blocks; ++block) {
    const int64_t first = static_cast<int64_t>(block) * deal.per_rank;
    for (const OffsetSpan& span : left[block]) {
      int64_t begin = first + span.begin;
      const int64_t end = std::min(first + span.end, length);
      if (begin >= end) continue;  // padding
      revive_before(begin);
      for (; next_done != done.end() && *next_done < end; ++next_done) {
        AppendPositions(rest, sequence, begin, *next_done);
        begin = *next_done + 1;
      }
      AppendPositions(rest, sequence, begin, end);
    }
  }
  revive_before(length);
  return rest;
}

// What `deal` leaves of the epoch when each of its ranks delivered `steps` steps: each row not
// yet delivered, once (ChunkAwareRemainder says why the padding does not pass on).
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
  if (consumed >= cut.rows) return Sequence{};
  if (epoch.sampler.kind != Kind::kRandom) {
    return ChunkAwareRemainder(epoch, deal, consumed, cut.rows);
  }
  // Rank r's positions i >= consumed are r + i * W: together the dealt sequence's positions
  // [consumed * W, cut.rows * W). A padding position among them repeats one below the length,
  // which is either delivered (below consumed * W) or left here: it passes on no row.
  Sequence rest;
  const int64_t begin = consumed * deal.world_size;
  const int64_t end = std::min(cut.rows * deal.world_size, deal.sequence.length());
  if (begin < end) AppendPositions(rest, deal.sequence, begin, end);
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
