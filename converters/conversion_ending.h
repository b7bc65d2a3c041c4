#pragma once
// How every conversion ends once its pipeline has run, whatever it wrote (images of one size
// or each at its own): interrupted, it removes its temporary file and says so; with nothing
// readable, it says which sample was first skipped and why; otherwise the Writer finishes the
// file (description, attributes last, rename) and the report gets what all conversions report.

#include <atomic>
#include <cstdint>
#include <string>

#include "convert_options.h"
#include "convert_report.h"
#include "h5feed/writer.h"

namespace h5feed::converters {

// Whether options.cancel was set: a conversion stops at the next sample.
inline bool Cancelled(const ConvertOptions& options) {
  return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

// Throws Error(kCancelled) when options.cancel was set (the temporary file removed),
// Error(kInvalidArgument) when no sample of the `offered` could be read, and what
// Writer::Finish throws. Fills report's path, images, chunks, skipped (this conversion's: the
// description's after its first `earlier`, which the source's own making skipped),
// compression, shuffled and seed.
void EndConversion(Writer& writer, const DatasetDescription& description, size_t earlier,
                   const ConvertOptions& options, const std::string& path, int64_t offered,
                   ConvertReport& report);

}  // namespace h5feed::converters
