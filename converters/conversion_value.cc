// ConversionValue (conversion.h): the one place the conversion report's keys are spelled, and
// where its derived figures are computed.

#include <utility>

#include "convert_report.h"

namespace h5feed::converters {
namespace {

using Object = ReportValue::Object;
using List = ReportValue::List;

double Ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

}  // namespace

ReportValue ConversionValue(const ConvertReport& r) {
  // Every input is either written or skipped (a strict conversion throws instead).
  const int64_t inputs = r.images + static_cast<int64_t>(r.skipped.size());
  List skipped;
  for (const SkippedSource& s : r.skipped) {
    skipped.push_back(Object{{"source", s.source}, {"reason", s.reason}});
  }
  List fields;
  for (const FieldSpec& f : r.fields) {
    fields.push_back(Object{{"name", f.name}, {"kind", ToString(f.kind)}, {"type", f.Describe()}});
  }
  List notes;
  for (const std::string& note : r.notes) notes.push_back(note);
  Object value{{"path", r.path},
               {"format_version", r.own_size ? 2 : 1},
               {"images", r.images},
               {"inputs", inputs},
               {"image_shape", List{r.shape.height, r.shape.width, r.shape.channels}},
               {"chunks", r.chunks},
               {"chunk_images", r.chunk_images},
               {"compression", r.compression.ToString()},
               {"shuffled", r.shuffled},
               {"seed", r.seed},
               {"raw_bytes", r.raw_bytes},
               {"stored_bytes", r.stored_bytes},
               {"compression_ratio", Ratio(double(r.raw_bytes), double(r.stored_bytes))},
               {"seconds", r.seconds},
               {"inputs_per_s", Ratio(double(inputs), r.seconds)},
               {"skipped", std::move(skipped)},
               {"labelled", r.labelled},
               {"fields", std::move(fields)},
               {"notes", std::move(notes)},
               {"own_size", r.own_size}};
  if (!r.own_size) return value;
  const bool smart = r.encoding.kind == StoredEncoding::Kind::kSmart;
  const double chunk_space = double(r.chunks) * double(r.chunk_bytes);
  value.insert(value.end(), {{"chunk_bytes", r.chunk_bytes},
                             {"max_side", r.max_side},
                             {"encoding", r.encoding.ToString()},
                             {"smart_threshold", smart ? r.smart_threshold : 0},
                             {"encodings", EncodingCountsValue(r.encodings)},
                             {"images_per_chunk", Ratio(double(r.images), double(r.chunks))},
                             {"payload_bytes", r.payload_bytes},
                             {"chunk_fill", Ratio(double(r.payload_bytes), chunk_space)}});
  return value;
}

}  // namespace h5feed::converters
