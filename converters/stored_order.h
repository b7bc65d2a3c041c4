#pragma once
// The order in which a conversion stores its source's rows (docs/format.md, "Stored order"):
// a seeded shuffle (sampler::Permutation, the same on every platform), or the source's own.
// Apart from the conversion so that a front end that feeds a source itself (the Python
// writer, h5feed.write) fetches the rows in the order the conversion reads them, from this one
// function, rather than computing the permutation a second way.

#include <cstdint>
#include <vector>

namespace h5feed::converters {

// Row i of the file holds source row StoredOrder(n, shuffle, seed)[i]: a permutation of
// 0..n-1 seeded by `seed` when `shuffle`, else 0..n-1.
std::vector<int64_t> StoredOrder(int64_t n, bool shuffle, uint64_t seed);

}  // namespace h5feed::converters
