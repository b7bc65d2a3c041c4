#include "bench/sweep_report.h"

#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "fixed_rows.h"
#include "h5feed/error.h"
#include "support/temp_folder.h"

namespace h5feed::bench {
namespace {

// The table's data lines ("| 1 | ..."), in order.
std::vector<std::string> TableLines(const std::string& md) {
  std::vector<std::string> lines;
  std::istringstream in(md.substr(md.find("## Results")));
  std::string line;
  while (std::getline(in, line) && line.rfind("## Ceilings", 0) != 0) {
    if (line.rfind("| ", 0) == 0 && line.size() > 2 && std::isdigit(line[2])) lines.push_back(line);
  }
  return lines;
}

TEST_CASE("the report tables every row best first, with its ceiling, and recommends") {
  const std::vector<SweepRow> rows = testing::SmallSweep();
  const Recommendation r = Recommend(rows);
  ReportContext context{"h5feed bench sweep f.h5 --out out",
                        "f.h5",
                        "2 cores",
                        "2026-01-01",
                        {"a note"},
                        "throughput.png"};
  const std::string md = SweepReportMarkdown(rows, r, RecommendOptions{}, context);
  CHECK(md.find("h5feed bench sweep f.h5 --out out") != std::string::npos);
  CHECK(md.find("> a note") != std::string::npos);
  CHECK(md.find("![images/s against chunk size](throughput.png)") != std::string::npos);
  CHECK(md.find(DescribeRecommendation(rows, r)) != std::string::npos);

  const std::vector<std::string> lines = TableLines(md);
  REQUIRE(lines.size() == rows.size());
  // Fastest first (5,000 / 3,000 / 2,000 / 1,000 / 800 / 500 images/s), the failed run last.
  CHECK(lines[0].rfind("| 1 | 64 | none | 256 | chunks:4 | 5,000 |", 0) == 0);
  CHECK(lines[1].rfind("| 2 | 16 | none | 256 | chunks:4 | 3,000 |", 0) == 0);
  CHECK(lines[1].find("**recommended**") != std::string::npos);
  CHECK(lines[2].find("h5feed's defaults") != std::string::npos);
  CHECK(lines[5].find("h5py random") != std::string::npos);
  CHECK(lines[5].find("DataLoader + h5py") != std::string::npos);
  CHECK(lines[6].find("failed: cannot open x.h5") != std::string::npos);
  // The ceiling and the fraction of it beside each run; shuffle quality beside random's.
  CHECK(lines[1].find("| 4000 (page cache) | 0.07 |") != std::string::npos);
  CHECK(lines[1].find("| 0.93 (1.00) |") != std::string::npos);
  CHECK(lines[1].find("| 4.0 (30.0) |") != std::string::npos);
  CHECK(lines[1].find("| 9.5 (10.0) | 3.20 (3.30) |") != std::string::npos);
  CHECK(lines[5].find("| - | - |") != std::string::npos);  // a reference: labels not measured
  // One line per file variant in the ceiling table (the reference's file is not a variant).
  CHECK(md.find("| chunk 16, none | ") != std::string::npos);
  CHECK(md.find("| chunk 64, zstd:3 | ") != std::string::npos);
}

TEST_CASE("a run whose batches mix few classes says so in its note") {
  std::vector<SweepRow> rows = testing::SmallSweep();
  rows[3].few_classes = true;
  const std::string md = SweepReportMarkdown(rows, Recommend(rows), RecommendOptions{}, {});
  const std::vector<std::string> lines = TableLines(md);
  CHECK(lines[0].find("| batches mix few classes |") != std::string::npos);
  CHECK(md.find("Nor are runs whose batches mix few classes (label entropy below 0.85") !=
        std::string::npos);
}

TEST_CASE("a '|' in an error cannot break the table") {
  std::vector<SweepRow> rows = testing::SmallSweep();
  rows[5].error = "a | b";
  const std::string md = SweepReportMarkdown(rows, Recommend(rows), RecommendOptions{}, {});
  CHECK(md.find("a \\| b") != std::string::npos);
}

TEST_CASE("WriteTextFile replaces the file whole") {
  testing::TempFolder folder;
  const std::string path = folder / "report.md";
  WriteTextFile(path, "first\n");
  WriteTextFile(path, "second\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "second\n");
  CHECK(folder.List() == std::vector<std::string>{"report.md"});
  CHECK_THROWS_AS(WriteTextFile("/nonexistent-folder/report.md", "x"), Error);
}

}  // namespace
}  // namespace h5feed::bench
