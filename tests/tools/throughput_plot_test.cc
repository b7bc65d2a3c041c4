#include "bench/throughput_plot.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "bench/subprocess.h"
#include "fixed_rows.h"
#include "support/temp_folder.h"

namespace h5feed::bench {
namespace {

using testing::Row;

std::vector<SweepRow> Grid() {
  return {Row(64, "none", 256, "random", 800, 1), Row(16, "none", 256, "random", 1000, 1),
          Row(16, "zstd:3", 256, "random", 600, 1), Row(16, "none", 1024, "chunks:4", 3000, 0.9),
          Row(64, "none", 1024, "chunks:4", 5000, 0.9)};
}

TEST_CASE("one data block per compression x cache x sampler, points in chunk order") {
  std::vector<SweepRow> rows = Grid();
  SweepRow defaults = Row(36, "zstd:3", 512, "chunks:8", 2000, 0.95);
  defaults.kind = "defaults";  // not a grid line: a block of its own, after them
  rows.push_back(defaults);
  SweepRow failed = Row(256, "none", 256, "random", 0, 0);
  failed.status = "failed";
  rows.push_back(failed);
  CHECK(ThroughputData(rows) ==
        "# none, cache 256 MiB, random\n16 1000.0\n64 800.0\n\n\n"
        "# zstd:3, cache 256 MiB, random\n16 600.0\n\n\n"
        "# none, cache 1024 MiB, chunks:4\n16 3000.0\n64 5000.0\n\n\n"
        "# zstd:3, h5feed's defaults (cache 512 MiB, chunks:8)\n36 2000.0\n\n\n");
}

TEST_CASE("the plot shows h5feed's defaults and the reference loaders beside the grid") {
  std::vector<SweepRow> rows = Grid();
  SweepRow defaults = Row(36, "zstd:3", 512, "chunks:8", 2000, 0.95);
  defaults.kind = "defaults";
  defaults.is_default = true;
  rows.push_back(defaults);
  SweepRow reference = Row(16, "none", 0, "h5py random", 450, kNotMeasured);
  reference.kind = "reference";
  rows.push_back(reference);
  const std::string gp = ThroughputScript(rows, "t.dat", "t.png");
  INFO(gp);
  // The defaults' point, in its compression's panel (index 3: after the grid's 3 lines).
  CHECK(gp.find("\"t.dat\" index 3 using 1:2 with points pointtype 7 pointsize 2 title "
                "\"h5feed's defaults (cache 512 MiB, chunks:8)\"") != std::string::npos);
  // The reference, dashed across both panels.
  const std::string line =
      "450.0 with lines dashtype 2 linewidth 2 title \"DataLoader + h5py random (the input as "
      "stored)\"";
  const size_t first = gp.find(line);
  REQUIRE(first != std::string::npos);
  CHECK(gp.find(line, first + 1) != std::string::npos);
  CHECK(gp.find("set xtics (16, 36, 64)") != std::string::npos);
}

TEST_CASE("the script draws one panel per compression, one line per cache x sampler") {
  const std::string gp = ThroughputScript(Grid(), "t.dat", "t.png");
  CHECK(gp.find("set output \"t.png\"") != std::string::npos);
  CHECK(gp.find("set multiplot layout 1,2") != std::string::npos);
  CHECK(gp.find("set title \"compression none\"") != std::string::npos);
  CHECK(gp.find("set title \"compression zstd:3\"") != std::string::npos);
  CHECK(gp.find("\"t.dat\" index 0 using 1:2 with linespoints title \"cache 256 MiB, random\"") !=
        std::string::npos);
  CHECK(
      gp.find("\"t.dat\" index 2 using 1:2 with linespoints title \"cache 1024 MiB, chunks:4\"") !=
      std::string::npos);
  CHECK(gp.find("set xtics (16, 64)") != std::string::npos);
}

TEST_CASE("gnuplot draws a PNG; a missing gnuplot is reported, not thrown") {
  testing::TempFolder folder;
  if (FindProgram("gnuplot").empty()) {
    MESSAGE("gnuplot is not installed: skipping the drawing");
  } else {
    const PlotOutcome drawn = DrawThroughputPlot(Grid(), folder.path());
    CHECK_MESSAGE(drawn.drawn, drawn.message);
    std::ifstream png(folder / "throughput.png", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(png)),
                            std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(bytes.substr(12, 4) == "IHDR");
  }
  const PlotOutcome missing = DrawThroughputPlot(Grid(), folder.path(), "no-such-gnuplot-here");
  CHECK_FALSE(missing.drawn);
  CHECK(missing.message.find("gnuplot not found") != std::string::npos);
  CHECK(missing.message.find("throughput.gp") != std::string::npos);
  const PlotOutcome empty = DrawThroughputPlot({}, folder.path());
  CHECK_FALSE(empty.drawn);
  CHECK(empty.message.find("nothing to plot") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::bench
