// VerificationValue (h5feed/verify.h): the one place the verify report's keys are spelled.

#include <string>
#include <vector>

#include "h5feed/verify.h"

namespace h5feed {
namespace {

using Object = ReportValue::Object;
using List = ReportValue::List;

List TextList(const std::vector<std::string>& lines) { return List(lines.begin(), lines.end()); }

}  // namespace

ReportValue VerificationValue(const VerificationReport& r) {
  List bad_chunks;
  for (const ChunkProblem& p : r.bad_chunks) {
    bad_chunks.push_back(Object{{"chunk", p.chunk},
                                {"first_row", p.first_row},
                                {"last_row", p.last_row},
                                {"problem", p.problem}});
  }
  List bad_images;
  for (const ImageProblem& p : r.bad_images) {
    bad_images.push_back(Object{{"row", p.row},
                                {"chunk", p.chunk},
                                {"source", p.source.empty() ? ReportValue() : p.source},
                                {"problem", p.problem}});
  }
  return Object{{"path", r.path},
                {"ok", r.ok()},
                {"indexed", r.indexed},
                {"is_h5feed", r.is_h5feed},
                {"samples", r.samples},
                {"chunks", r.chunks},
                {"chunk_samples", r.chunk_samples},
                {"read_path", r.read_path},
                {"chunks_checked", r.chunks_checked},
                {"bad_chunks", std::move(bad_chunks)},
                {"own_size", r.own_size},
                {"encodings", r.own_size ? EncodingCountsValue(r.encodings) : nullptr},
                {"images_decoded", r.images_decoded},
                {"bad_images", std::move(bad_images)},
                {"problems", TextList(r.problems)},
                {"checked", TextList(r.checked)},
                {"not_checked", TextList(r.not_checked)},
                {"warnings", TextList(r.warnings)}};
}

}  // namespace h5feed
