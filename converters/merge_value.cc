// MergeValue (merge.h): the one place the merge report's keys are spelled.

#include "merge.h"

namespace h5feed::converters {

ReportValue MergeValue(const MergeReport& r) {
  return ReportValue::Object{
      {"path", r.path},
      {"parts", r.parts},
      {"images", r.images},
      {"skipped", r.skipped},
      {"chunks", r.chunks},
      {"copied_chunks", r.copied_chunks},
      {"repacked_rows", r.repacked_rows},
      {"copied_bytes", r.copied_bytes},
      {"stored_bytes", r.stored_bytes},
      {"seconds", r.seconds},
      {"bytes_per_s", r.seconds > 0 ? double(r.stored_bytes) / r.seconds : 0.0}};
}

}  // namespace h5feed::converters
