#pragma once
// DIR/throughput.png of `h5feed bench sweep`: images/s against chunk size (log scale), one
// line per cache size x sampler, one panel per compression, side by side in one PNG, with what
// the recommendation is measured against: h5feed's defaults run as a marked point in its
// panel, and each reference loader (DataLoader + h5py) as a dashed line across every panel,
// at its rate on the input as stored. Drawn by
// gnuplot (pngcairo) from a data file and a script written beside it (throughput.dat,
// throughput.gp), so a user can restyle the plot and run gnuplot again.

#include <span>
#include <string>

#include "sweep_row.h"

namespace h5feed::bench {

// gnuplot's data blocks (one per compression x cache x sampler of the grid's successful runs,
// then one per defaults run; separated by two blank lines, each "chunk_samples images_per_s"
// lines in chunk order).
std::string ThroughputData(std::span<const SweepRow> rows);

// The gnuplot script drawing `data_file` (as ThroughputData wrote it) into `png_file`.
std::string ThroughputScript(std::span<const SweepRow> rows, const std::string& data_file,
                             const std::string& png_file);

struct PlotOutcome {
  bool drawn = false;
  std::string message;  // why not, when not drawn
};

// Writes DIR/throughput.dat and DIR/throughput.gp and runs `gnuplot` on them to draw
// DIR/throughput.png. Never throws for a missing or failing gnuplot: the outcome says why.
PlotOutcome DrawThroughputPlot(std::span<const SweepRow> rows, const std::string& dir,
                               const std::string& gnuplot = "gnuplot");

}  // namespace h5feed::bench
