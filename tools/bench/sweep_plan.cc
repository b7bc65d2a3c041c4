// Parsing and ordering the sweep's grid (sweep_plan.h).

#include "sweep_plan.h"

#include <algorithm>
#include <charconv>

#include "h5feed/error.h"
#include "make_error.h"
#include "memory_budget.h"
#include "sweep_row.h"

namespace h5feed::bench {
namespace {

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

[[noreturn]] void BadItem(std::string_view option, std::string_view item, const std::string& why) {
  throw MakeError(ErrorCode::kInvalidArgument, "{}: '{}' {}", option, item, why);
}

template <typename T, typename Parse>
std::vector<T> ParseList(std::string_view text, std::string_view option, Parse parse) {
  std::vector<T> values;
  for (std::string_view item : SplitCommas(text)) {
    if (item.empty()) BadItem(option, item, "is empty: give a comma-separated list, e.g. a,b,c");
    T value = parse(item);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

}  // namespace

std::vector<int64_t> ParseNumberList(std::string_view text, std::string_view option, int64_t min) {
  return ParseList<int64_t>(text, option, [&](std::string_view item) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size()) {
      BadItem(option, item, "is not a whole number");
    }
    if (value < min) BadItem(option, item, "must be at least " + std::to_string(min));
    return value;
  });
}

SweepGrid ParseGrid(std::string_view chunks, std::string_view compressions,
                    std::string_view cache_mb, std::string_view samplers) {
  SweepGrid grid;
  grid.chunks = ParseNumberList(chunks, "--chunks", 1);
  grid.compressions =
      ParseList<Compression>(compressions, "--compression", [](std::string_view item) {
        try {
          return Compression::Parse(item);
        } catch (const Error& e) {
          BadItem("--compression", item, std::string("is not a compression: ") + e.what());
        }
      });
  grid.cache_mb = ParseNumberList(cache_mb, "--cache-mb", 0);
  grid.samplers = ParseList<SamplerOptions>(samplers, "--sampler", [](std::string_view item) {
    try {
      return SamplerOptions::Parse(item);
    } catch (const Error& e) {
      BadItem("--sampler", item, std::string("is not a sampler: ") + e.what());
    }
  });
  return grid;
}

std::vector<StoredEncoding> ParseEncodings(std::string_view text) {
  return ParseList<StoredEncoding>(text, "--encodings", [](std::string_view item) {
    try {
      return StoredEncoding::Parse(item);
    } catch (const Error& e) {
      BadItem("--encodings", item, std::string("is not an encoding: ") + e.what());
    }
  });
}

std::vector<int64_t> ParseChunkBytes(std::string_view text) {
  return ParseList<int64_t>(text, "--chunk-bytes", [](std::string_view item) {
    int64_t bytes = 0;
    try {
      bytes = converters::ParseMemorySize(item);
    } catch (const Error& e) {
      BadItem("--chunk-bytes", item, std::string("is not a size: ") + e.what());
    }
    if (bytes <= 0) BadItem("--chunk-bytes", item, "must be a positive size, e.g. 4M");
    return bytes;
  });
}

std::string FileVariant::Name() const {
  return FileVariantWords(chunk_samples, encoding.ToString(), chunk_bytes, compression.ToString());
}

SweepRun DefaultRun(int64_t default_chunk_samples) {
  SweepRun run;
  run.file.chunk_samples = default_chunk_samples;
  run.file.compression = Compression{};  // zstd:3
  run.cache_mb = 512;
  run.sampler = SamplerOptions{};  // chunks:8
  run.in_grid = false;
  run.is_default = true;
  return run;
}

SweepPlan PlanSweep(const std::vector<FileVariant>& files, const SweepGrid& grid,
                    const SweepRun& defaults) {
  std::vector<SamplerOptions> samplers = grid.samplers;
  SamplerOptions random;
  random.kind = SamplerOptions::Kind::kRandom;
  if (std::find(samplers.begin(), samplers.end(), random) == samplers.end()) {
    samplers.push_back(random);
  }
  SweepPlan plan;
  bool defaults_in_grid = false;
  for (const FileVariant& file : files) {
    plan.files.push_back(file);
    for (int64_t cache : grid.cache_mb) {
      for (const SamplerOptions& sampler : samplers) {
        SweepRun run{file, cache, sampler, true, false};
        run.is_default =
            file == defaults.file && cache == defaults.cache_mb && sampler == defaults.sampler;
        defaults_in_grid = defaults_in_grid || run.is_default;
        plan.runs.push_back(run);
      }
    }
  }
  if (!defaults_in_grid) {
    // Next to its file variant when the grid has it, so no variant is made twice.
    auto same_file = std::find_if(plan.runs.rbegin(), plan.runs.rend(),
                                  [&](const SweepRun& r) { return r.file == defaults.file; });
    if (same_file != plan.runs.rend()) {
      plan.runs.insert(same_file.base(), defaults);
    } else {
      plan.files.push_back(defaults.file);
      plan.runs.push_back(defaults);
    }
  }
  return plan;
}

}  // namespace h5feed::bench
