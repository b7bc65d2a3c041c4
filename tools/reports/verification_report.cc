// ToText and ToJson of VerificationReport (verification_report.h).

#include "reports/verification_report.h"

#include <nlohmann/json.hpp>

namespace h5feed::reports {
namespace {

// Text lists are cut here (the JSON has them all): a file with every chunk damaged would
// otherwise print thousands of lines.
constexpr size_t kTextListed = 50;

std::string Rows(const ChunkProblem& p) {
  return "rows " + std::to_string(p.first_row) + "-" + std::to_string(p.last_row);
}

std::string Verdict(const VerificationReport& r) {
  if (r.ok()) {
    return r.path + ": OK: nothing wrong found in " + std::to_string(r.chunks) + " chunks (" +
           std::to_string(r.samples) + " images)" +
           (r.not_checked.empty() ? "" : "; some things could not be checked (below)") + "\n";
  }
  std::string text = r.path + ": DAMAGED: ";
  if (!r.indexed) return text + "the file cannot be read as an image file\n";
  text += std::to_string(r.bad_chunks.size()) + " of " + std::to_string(r.chunks) + " chunks bad";
  if (!r.bad_images.empty()) {
    text += " (" + std::to_string(r.bad_images.size()) + " of " + std::to_string(r.samples) +
            " images bad)";
  }
  if (!r.problems.empty()) text += ", " + std::to_string(r.problems.size()) + " other problems";
  return text + "\n";
}

}  // namespace

std::string ToText(const VerificationReport& r) {
  std::string text = Verdict(r);
  for (size_t i = 0; i < r.bad_chunks.size() && i < kTextListed; ++i) {
    const ChunkProblem& p = r.bad_chunks[i];
    text += "  bad chunk " + std::to_string(p.chunk) + " (" + Rows(p) + "): " + p.problem + "\n";
  }
  if (r.bad_chunks.size() > kTextListed) {
    text += "  ... and " + std::to_string(r.bad_chunks.size() - kTextListed) +
            " more bad chunks (--json lists all)\n";
  }
  for (size_t i = 0; i < r.bad_images.size() && i < kTextListed; ++i) {
    const ImageProblem& p = r.bad_images[i];
    text += "  bad image row " + std::to_string(p.row) + " (chunk " + std::to_string(p.chunk) +
            "): " + p.problem + "\n";
  }
  if (r.bad_images.size() > kTextListed) {
    text += "  ... and " + std::to_string(r.bad_images.size() - kTextListed) +
            " more bad images (--json lists all)\n";
  }
  for (const std::string& problem : r.problems) text += "  problem: " + problem + "\n";
  for (const std::string& warning : r.warnings) text += "  warning: " + warning + "\n";
  for (const std::string& line : r.checked) text += "  checked: " + line + "\n";
  for (const std::string& line : r.not_checked) text += "  not checked: " + line + "\n";
  return text;
}

std::string ToJson(const VerificationReport& r) {
  using json = nlohmann::ordered_json;
  json bad = json::array();
  for (const ChunkProblem& p : r.bad_chunks) {
    bad.push_back({{"chunk", p.chunk},
                   {"first_row", p.first_row},
                   {"last_row", p.last_row},
                   {"problem", p.problem}});
  }
  json images = json::array();
  for (const ImageProblem& p : r.bad_images) {
    images.push_back({{"row", p.row}, {"chunk", p.chunk}, {"problem", p.problem}});
  }
  json out = {{"path", r.path},
              {"ok", r.ok()},
              {"indexed", r.indexed},
              {"is_h5feed", r.is_h5feed},
              {"samples", r.samples},
              {"chunks", r.chunks},
              {"chunk_samples", r.chunk_samples},
              {"read_path", r.read_path},
              {"chunks_checked", r.chunks_checked},
              {"bad_chunks", bad},
              {"own_size", r.own_size},
              {"jpeg_images", r.jpeg_images},
              {"jpeg_images_decoded", r.jpeg_images_decoded},
              {"bad_images", images},
              {"problems", r.problems},
              {"checked", r.checked},
              {"not_checked", r.not_checked},
              {"warnings", r.warnings}};
  return out.dump(2) + "\n";
}

}  // namespace h5feed::reports
