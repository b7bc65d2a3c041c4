#include "conversion_ending.h"

#include <cstddef>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {

void EndConversion(Writer& writer, const DatasetDescription& description, size_t earlier,
                   const ConvertOptions& options, const std::string& path, int64_t offered,
                   ConvertReport& report) {
  if (Cancelled(options)) {
    std::string temporary = writer.temporary_path();
    writer.Abandon();
    throw MakeError(ErrorCode::kCancelled, "conversion interrupted; removed {}, {} was not written",
                    temporary, path);
  }
  if (writer.images_written() == 0) {
    const SkippedSource& first = description.skipped.at(earlier);
    throw MakeError(ErrorCode::kInvalidArgument,
                    "no sample could be read: all {} were skipped as broken; the first, {}: {}",
                    offered, first.source, first.reason);
  }
  writer.Finish(description);
  report.path = path;
  report.images = writer.images_written();
  report.chunks = writer.chunks_written();
  report.skipped.assign(description.skipped.begin() + static_cast<std::ptrdiff_t>(earlier),
                        description.skipped.end());
  report.compression = options.compression;
  report.shuffled = options.shuffle;
  report.seed = options.seed;
}

}  // namespace h5feed::converters
