#pragma once
// How a `checked` line of the verify report counts what it covered: "all 7 rows", but "1 row"
// for a file of one (not "all 1 rows").

#include <cstdint>
#include <string>
#include <string_view>

namespace h5feed::verify {

// `thing` is the singular, led by its space (" row"); empty for a count alone ("all 7").
inline std::string All(int64_t count, std::string_view thing = {}) {
  if (count == 1) return "1" + std::string(thing);
  return "all " + std::to_string(count) + std::string(thing) + (thing.empty() ? "" : "s");
}

}  // namespace h5feed::verify
