#pragma once
// The half of Convert (conversion.h) that writes a source of images at their own size
// (SampleSource::own_size()) as a version 2 "flat" file: docs/format.md, "Images at their own
// size". Convert checks the source and the options both halves share, resolves the memory
// budget and the stored order, and calls it.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "conversion.h"
#include "memory_budget.h"
#include "sample_source.h"

namespace h5feed {

// `order`: the stored order (source rows), or the part of it options.part converts;
// `budget`: the one the source decodes within; `description`: the file's classes, source kind,
// seed and part, to which the conversion adds its rows; `start`: when Convert began, for the
// report. Throws as Convert does.
ConvertReport ConvertOwnSize(const SampleSource& source, const std::string& path,
                             const ConvertOptions& options, MemoryBudget& budget,
                             const std::vector<int64_t>& order, DatasetDescription description,
                             std::chrono::steady_clock::time_point start);

}  // namespace h5feed
