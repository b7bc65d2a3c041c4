#include "bench/results_csv.h"

#include <doctest/doctest.h>

#include <algorithm>

#include <fstream>
#include <sstream>

#include "fixed_rows.h"
#include "h5feed/error.h"
#include "support/temp_folder.h"

namespace h5feed::bench {
namespace {

// Splits one CSV line (no trailing newline) into cells, undoing RFC 4180 quoting.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::string Cell(const std::string& line, const std::string& column) {
  const std::vector<std::string>& names = CsvColumnNames();
  const auto at = std::find(names.begin(), names.end(), column);
  REQUIRE(at != names.end());
  std::string trimmed = line;
  if (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  const std::vector<std::string> cells = Cells(trimmed);
  REQUIRE(cells.size() == names.size());
  return cells[static_cast<size_t>(at - names.begin())];
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("the header names every column once, settings first") {
  const std::vector<std::string>& names = CsvColumnNames();
  CHECK(CsvHeader() == [&] {
    std::string line;
    for (const auto& n : names) line += (line.empty() ? "" : ",") + n;
    return line + "\n";
  }());
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(names.front() == "kind");
  for (const char* column : {"chunk_samples", "compression", "cache_mb", "sampler", "images_per_s",
                             "shuffle_quality", "random_shuffle_quality", "ceiling_mb_per_s",
                             "fraction_of_ceiling", "wait_share", "peak_rss_mb"}) {
    CHECK(std::find(names.begin(), names.end(), column) != names.end());
  }
}

TEST_CASE("a row's cells hold its figures; a figure that does not apply is an empty cell") {
  const std::vector<SweepRow> rows = testing::SmallSweep();
  const std::string line = CsvLine(rows[1]);
  CHECK(line.back() == '\n');
  CHECK(Cell(line, "kind") == "grid");
  CHECK(Cell(line, "chunk_samples") == "16");
  CHECK(Cell(line, "sampler") == "chunks:4");
  CHECK(Cell(line, "images_per_s") == "3000");
  CHECK(Cell(line, "shuffle_quality") == "0.93");
  CHECK(Cell(line, "random_shuffle_quality") == "1");
  CHECK(Cell(line, "fraction_of_ceiling") == "0.075");
  CHECK(Cell(line, "is_default") == "0");
  CHECK(Cell(line, "zstd_mb_per_s").empty());  // kNotMeasured
  CHECK(Cell(line, "classes_per_batch") == "9.5");
  CHECK(Cell(line, "random_classes_per_batch") == "10");
  CHECK(Cell(line, "label_entropy_bits") == "3.2");
  CHECK(Cell(line, "random_label_entropy_bits") == "3.3");
  CHECK(Cell(line, "few_classes") == "0");
  const std::string reference = CsvLine(rows[6]);
  CHECK(Cell(reference, "kind") == "reference");
  CHECK(Cell(reference, "shuffle_quality").empty());
  CHECK(Cell(CsvLine(rows[4]), "is_default") == "1");
}

TEST_CASE("text with commas, quotes and line breaks is quoted and reads back whole") {
  SweepRow row = testing::SmallSweep()[5];
  row.error = "bad \"chunk\" 3, rows 48-63\nsecond line";
  const std::string line = CsvLine(row);
  CHECK(line.find("\"bad \"\"chunk\"\" 3, rows 48-63\nsecond line\"") != std::string::npos);
  CHECK(Cell(line, "error") == row.error);
  CHECK(Cell(line, "status") == "failed");
}

TEST_CASE("ResultsCsv flushes each row as it is appended, so an interrupted sweep keeps them") {
  testing::TempFolder folder;
  const std::string path = folder / "results.csv";
  ResultsCsv csv(path);
  CHECK(ReadFile(path) == CsvHeader());
  const std::vector<SweepRow> rows = testing::SmallSweep();
  csv.Append(rows[0]);
  CHECK(ReadFile(path) == CsvHeader() + CsvLine(rows[0]));  // read while the writer is open
  csv.Append(rows[1]);
  CHECK(ReadFile(path) == CsvHeader() + CsvLine(rows[0]) + CsvLine(rows[1]));
}

TEST_CASE("a CSV that cannot be created is an Io error naming it") {
  CHECK_THROWS_WITH_AS(ResultsCsv("/nonexistent-folder/results.csv"),
                       doctest::Contains("/nonexistent-folder/results.csv"), Error);
}

}  // namespace
}  // namespace h5feed::bench
