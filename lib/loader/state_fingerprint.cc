#include "loader/state_fingerprint.h"

#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "sampler/permutation.h"

namespace h5feed::loader {
namespace {

using Field = std::pair<std::string, int64_t>;

// The covered values in the documented order, named as in the order key.
std::vector<Field> CoveredValues(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  return {{"samples", dataset.samples},
          {"height", dataset.shape.height},
          {"width", dataset.shape.width},
          {"channels", dataset.shape.channels},
          {"chunk_samples", dataset.chunk_samples},
          {"chunks", dataset.chunk_count()},
          {"batch_size", options.batch_size},
          {"drop_last_batch", options.drop_last_batch ? 1 : 0},
          {"sampler", static_cast<int64_t>(options.sampler.kind)},
          {"window", options.sampler.window},
          {"shard.drop_last", options.shard.drop_last ? 1 : 0},
          {"echo", options.echo}};
}

uint64_t Hash(const std::vector<Field>& fields) {
  uint64_t hash = 0;
  for (const auto& [name, value] : fields) {
    hash = transform::SplitMix64(hash ^ static_cast<uint64_t>(value)).Next();
  }
  return hash;
}

// name -> value text of an order key.
std::map<std::string, std::string> KeyValues(const std::string& key) {
  std::map<std::string, std::string> values;
  std::istringstream words(key);
  std::string word;
  while (words >> word) {
    const size_t equals = word.find('=');
    values[word.substr(0, equals)] = equals == std::string::npos ? "" : word.substr(equals + 1);
  }
  return values;
}

}  // namespace

uint64_t StateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  return Hash(CoveredValues(dataset, options));
}

uint64_t LegacyStateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  std::vector<Field> fields = CoveredValues(dataset, options);
  const auto drop_last = fields.end() - 2;  // shard.drop_last, echo follow the world size
  fields.insert(drop_last, Field{"world_size", options.shard.world_size});
  return Hash(fields);
}

std::string OrderKey(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  std::string key;
  for (const auto& [name, value] : CoveredValues(dataset, options)) {
    if (!key.empty()) key += ' ';
    key += name + '=';
    if (name == "sampler") {
      key += options.sampler.ToString();  // kind and window, readable ("chunks:8")
    } else if (name == "drop_last_batch" || name == "shard.drop_last") {
      key += value != 0 ? "true" : "false";
    } else {
      key += std::to_string(value);
    }
  }
  return key;
}

StateIdentity IdentifyState(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  return StateIdentity{StateFingerprint(dataset, options), LegacyStateFingerprint(dataset, options),
                       OrderKey(dataset, options), dataset.path};
}

std::string OrderKeyDifferences(const std::string& saved, const std::string& current) {
  const std::map<std::string, std::string> theirs = KeyValues(saved);
  std::map<std::string, std::string> mine = KeyValues(current);
  std::string differences;
  auto add = [&](const std::string& name, const std::string& in_state, const std::string& here) {
    if (!differences.empty()) differences += "; ";
    differences += name + " " + in_state + " in the state, " + here + " here";
  };
  std::istringstream words(current);
  std::string word;
  while (words >> word) {
    const std::string name = word.substr(0, word.find('='));
    auto saved_value = theirs.find(name);
    if (saved_value == theirs.end()) {
      add(name, "(none)", mine[name]);
    } else if (saved_value->second != mine[name]) {
      add(name, saved_value->second, mine[name]);
    }
  }
  for (const auto& [name, value] : theirs) {
    if (mine.count(name) == 0) add(name, value, "(none)");
  }
  return differences;
}

}  // namespace h5feed::loader
