#pragma once
// DIR/results.csv of `h5feed bench sweep`: a header, then one row per combination, written
// and flushed as each run ends, so an interrupted sweep keeps the rows it finished. Columns
// (in this order) are documented in docs/bench.md; CsvColumnNames() is the single list both
// the writer and the tests use. RFC 4180 quoting; numbers in C locale; a figure that does not
// apply is an empty cell.

#include <fstream>
#include <string>
#include <vector>

#include "sweep_row.h"

namespace h5feed::bench {

const std::vector<std::string>& CsvColumnNames();
std::string CsvHeader();                   // the names, comma-separated, with a newline
std::string CsvLine(const SweepRow& row);  // one line with a newline

// Thread-compatible (one writer per file).
class ResultsCsv {
 public:
  // Creates (or truncates) `path` and writes the header. Throws Error(kIo) naming the file.
  explicit ResultsCsv(const std::string& path);
  // Appends the row and flushes it to the file. Throws Error(kIo) when the write fails.
  void Append(const SweepRow& row);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace h5feed::bench
