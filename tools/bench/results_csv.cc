// The sweep's CSV file (results_csv.h).

#include "results_csv.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::bench {
namespace {

std::string Number(double value) {
  if (!Measured(value)) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string Integer(int64_t value) { return std::to_string(value); }
std::string Flag(bool value) { return value ? "1" : "0"; }

// Quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string Text(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

struct Column {
  std::string name;
  std::function<std::string(const SweepRow&)> cell;
};

const std::vector<Column>& Columns() {
  static const std::vector<Column> columns = {
      {"kind", [](const SweepRow& r) { return Text(r.kind); }},
      {"chunk_samples", [](const SweepRow& r) { return Integer(r.chunk_samples); }},
      {"compression", [](const SweepRow& r) { return Text(r.compression); }},
      {"encoding", [](const SweepRow& r) { return Text(r.encoding); }},
      {"chunk_bytes", [](const SweepRow& r) { return Integer(r.chunk_bytes); }},
      {"cache_mb", [](const SweepRow& r) { return Integer(r.cache_mb); }},
      {"sampler", [](const SweepRow& r) { return Text(r.sampler); }},
      {"is_default", [](const SweepRow& r) { return Flag(r.is_default); }},
      {"status", [](const SweepRow& r) { return Text(r.status); }},
      {"error", [](const SweepRow& r) { return Text(r.error); }},
      {"batch", [](const SweepRow& r) { return Integer(r.batch); }},
      {"threads", [](const SweepRow& r) { return Integer(r.threads); }},
      {"step_ms", [](const SweepRow& r) { return Number(r.step_ms); }},
      {"cold", [](const SweepRow& r) { return Flag(r.cold); }},
      {"images", [](const SweepRow& r) { return Integer(r.images); }},
      {"seconds", [](const SweepRow& r) { return Number(r.seconds); }},
      {"images_per_s", [](const SweepRow& r) { return Number(r.images_per_s); }},
      {"mb_per_s", [](const SweepRow& r) { return Number(r.mb_per_s); }},
      {"chunk_reads_per_chunk", [](const SweepRow& r) { return Number(r.chunk_reads_per_chunk); }},
      {"cache_hit_rate", [](const SweepRow& r) { return Number(r.cache_hit_rate); }},
      {"wait_share", [](const SweepRow& r) { return Number(r.wait_share); }},
      {"cpu_cores_used", [](const SweepRow& r) { return Number(r.cpu_cores_used); }},
      {"peak_rss_mb", [](const SweepRow& r) { return Number(r.peak_rss_mb); }},
      {"shuffle_quality", [](const SweepRow& r) { return Number(r.shuffle_quality); }},
      {"random_shuffle_quality",
       [](const SweepRow& r) { return Number(r.random_shuffle_quality); }},
      {"chunks_per_batch", [](const SweepRow& r) { return Number(r.chunks_per_batch); }},
      {"random_chunks_per_batch",
       [](const SweepRow& r) { return Number(r.random_chunks_per_batch); }},
      {"classes_per_batch", [](const SweepRow& r) { return Number(r.classes_per_batch); }},
      {"random_classes_per_batch",
       [](const SweepRow& r) { return Number(r.random_classes_per_batch); }},
      {"label_entropy_bits", [](const SweepRow& r) { return Number(r.label_entropy_bits); }},
      {"random_label_entropy_bits",
       [](const SweepRow& r) { return Number(r.random_label_entropy_bits); }},
      {"few_classes", [](const SweepRow& r) { return Flag(r.few_classes); }},
      {"file_mb", [](const SweepRow& r) { return Number(r.file_mb); }},
      {"file_mib", [](const SweepRow& r) { return Number(r.file_mib); }},
      {"fits_page_cache", [](const SweepRow& r) { return Text(r.fits_page_cache); }},
      {"compression_ratio", [](const SweepRow& r) { return Number(r.compression_ratio); }},
      {"page_cache_mb_per_s", [](const SweepRow& r) { return Number(r.page_cache_mb_per_s); }},
      {"zstd_mb_per_s", [](const SweepRow& r) { return Number(r.zstd_mb_per_s); }},
      {"memcpy_mb_per_s", [](const SweepRow& r) { return Number(r.memcpy_mb_per_s); }},
      {"ceiling_mb_per_s", [](const SweepRow& r) { return Number(r.ceiling_mb_per_s); }},
      {"ceiling", [](const SweepRow& r) { return Text(r.ceiling); }},
      {"fraction_of_ceiling", [](const SweepRow& r) { return Number(r.fraction_of_ceiling); }},
      {"read_mb_per_s", [](const SweepRow& r) { return Number(r.read_mb_per_s); }},
      {"disk_mb_per_s", [](const SweepRow& r) { return Number(r.disk_mb_per_s); }},
      {"fraction_of_disk", [](const SweepRow& r) { return Number(r.fraction_of_disk); }},
  };
  return columns;
}

}  // namespace

const std::vector<std::string>& CsvColumnNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Column& column : Columns()) out.push_back(column.name);
    return out;
  }();
  return names;
}

std::string CsvHeader() {
  std::string line;
  for (const std::string& name : CsvColumnNames()) line += (line.empty() ? "" : ",") + name;
  return line + "\n";
}

std::string CsvLine(const SweepRow& row) {
  std::string line;
  bool first = true;
  for (const Column& column : Columns()) {
    if (!first) line += ',';
    line += column.cell(row);
    first = false;
  }
  return line + "\n";
}

ResultsCsv::ResultsCsv(const std::string& path) : path_(path), out_(path, std::ios::trunc) {
  if (!out_) throw MakeError(ErrorCode::kIo, "cannot create {}: {}", path, std::strerror(errno));
  out_ << CsvHeader() << std::flush;
}

void ResultsCsv::Append(const SweepRow& row) {
  out_ << CsvLine(row) << std::flush;
  if (!out_) throw MakeError(ErrorCode::kIo, "cannot write a row to {} (disk full?)", path_);
}

}  // namespace h5feed::bench
