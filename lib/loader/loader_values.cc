// StatsValue and DatasetValue (h5feed/loader.h): the one place the keys of Loader.stats() and
// Loader.dataset are spelled.

#include "h5feed/loader.h"

namespace h5feed {

ReportValue StatsValue(const LoaderStats& s) {
  return ReportValue::Object{{"batches", s.batches},
                             {"samples", s.samples},
                             {"chunk_reads", s.chunk_reads},
                             {"chunk_reads_ahead", s.chunk_reads_ahead},
                             {"cache_hits", s.cache_hits},
                             {"cache_misses", s.cache_misses},
                             {"bytes_read", s.bytes_read},
                             {"bytes_decoded", s.bytes_decoded},
                             {"corrupt_chunks_skipped", s.corrupt_chunks_skipped},
                             {"samples_skipped", s.samples_skipped},
                             {"wait_seconds", s.wait_seconds},
                             {"slot_bytes", s.slot_bytes}};
}

ReportValue DatasetValue(const DatasetInfo& d) {
  const ImageShape& shape = d.image_shape;
  return ReportValue::Object{
      {"path", d.path},
      {"samples", d.samples},
      {"image_shape", ReportValue::List{shape.height, shape.width, shape.channels}},
      {"chunk_samples", d.chunk_samples},
      {"chunks", d.chunks},
      {"own_size", d.own_size},
      {"chunk_first_rows", ReportValue::List(d.chunk_first_rows.begin(), d.chunk_first_rows.end())},
      {"classes", ReportValue::List(d.classes.begin(), d.classes.end())}};
}

}  // namespace h5feed
