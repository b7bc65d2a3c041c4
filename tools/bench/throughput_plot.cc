// The sweep's throughput plot (throughput_plot.h).

#include "throughput_plot.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "h5feed/error.h"
#include "subprocess.h"
#include "sweep_report.h"

namespace h5feed::bench {
namespace {

struct Series {
  std::string compression;  // the panel
  int64_t cache_mb;
  std::string sampler;
  std::vector<std::pair<int64_t, double>> points;  // chunk, images/s
  bool defaults = false;  // h5feed's defaults run: a marked point, not a line
};

// What the recommendation is measured against besides the grid: a reference loader's rate,
// drawn across every panel (it reads the input as stored, whatever the grid's chunks).
struct Reference {
  std::string name;  // "h5py random"
  double images_per_s;
};

// The panel a row is drawn in: its compression; an own-size file's encoding and compression
// (its x is then the most images a chunk holds).
std::string Panel(const SweepRow& row) {
  return row.chunk_bytes > 0 ? row.encoding + ", " + row.compression : row.compression;
}

// A line per cache x sampler of the grid's runs, then a point per run of h5feed's defaults
// (kind "defaults"; a grid run with the defaults' settings is on its line already).
std::vector<Series> CollectSeries(std::span<const SweepRow> rows) {
  std::vector<Series> series;
  for (const SweepRow& row : rows) {
    if (row.kind == "defaults" && row.succeeded() && row.images_per_s > 0) {
      series.push_back(
          {Panel(row), row.cache_mb, row.sampler, {{row.chunk_samples, row.images_per_s}}, true});
    }
  }
  const size_t defaults = series.size();
  for (const SweepRow& row : rows) {
    if (row.kind != "grid" || !row.succeeded() || row.images_per_s <= 0) continue;
    const std::string panel = Panel(row);
    auto it = std::find_if(
        series.begin() + static_cast<std::ptrdiff_t>(defaults), series.end(), [&](const Series& s) {
          return s.compression == panel && s.cache_mb == row.cache_mb && s.sampler == row.sampler;
        });
    if (it == series.end()) {
      series.push_back({panel, row.cache_mb, row.sampler, {}});
      it = series.end() - 1;
    }
    it->points.emplace_back(row.chunk_samples, row.images_per_s);
  }
  for (Series& s : series) std::sort(s.points.begin(), s.points.end());
  // The grid's lines first, in their order, the defaults' points after them.
  std::rotate(series.begin(), series.begin() + static_cast<std::ptrdiff_t>(defaults), series.end());
  return series;
}

std::vector<Reference> CollectReferences(std::span<const SweepRow> rows) {
  std::vector<Reference> references;
  for (const SweepRow& row : rows) {
    if (row.kind == "reference" && row.succeeded() && row.images_per_s > 0) {
      references.push_back({row.sampler, row.images_per_s});
    }
  }
  return references;
}

std::string SeriesTitle(const Series& s) {
  const std::string settings = "cache " + std::to_string(s.cache_mb) + " MiB, " + s.sampler;
  return s.defaults ? "h5feed's defaults (" + settings + ")" : settings;
}

std::vector<std::string> Compressions(const std::vector<Series>& series) {
  std::vector<std::string> names;
  for (const Series& s : series) {
    if (std::find(names.begin(), names.end(), s.compression) == names.end()) {
      names.push_back(s.compression);
    }
  }
  return names;
}

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string ThroughputData(std::span<const SweepRow> rows) {
  std::string data;
  for (const Series& s : CollectSeries(rows)) {
    data += "# " + s.compression + ", " + SeriesTitle(s) + "\n";
    for (const auto& [chunk, rate] : s.points) {
      char line[64];
      std::snprintf(line, sizeof line, "%lld %.1f\n", static_cast<long long>(chunk), rate);
      data += line;
    }
    data += "\n\n";
  }
  return data;
}

std::string ThroughputScript(std::span<const SweepRow> rows, const std::string& data_file,
                             const std::string& png_file) {
  const std::vector<Series> series = CollectSeries(rows);
  const std::vector<Reference> references = CollectReferences(rows);
  const std::vector<std::string> compressions = Compressions(series);
  const size_t panels = std::max<size_t>(1, compressions.size());
  std::string gp;
  gp += "set terminal pngcairo size " + std::to_string(560 * panels + 80) +
        ",520 enhanced font \"sans,10\"\n";
  gp += "set output " + Quoted(png_file) + "\n";
  // Ticks at the chunk sizes swept, and a margin so no point sits on the frame.
  std::vector<int64_t> chunks;
  for (const Series& s : series) {
    for (const auto& point : s.points) {
      if (std::find(chunks.begin(), chunks.end(), point.first) == chunks.end()) {
        chunks.push_back(point.first);
      }
    }
  }
  std::sort(chunks.begin(), chunks.end());
  std::string tics;
  for (int64_t chunk : chunks) tics += (tics.empty() ? "" : ", ") + std::to_string(chunk);
  gp +=
      "set logscale x 2\nset grid\nset key top left font \",8\"\nset offsets graph 0.05, "
      "graph 0.05, 0, 0\n";
  if (!tics.empty()) gp += "set xtics (" + tics + ")\n";
  gp += "set xlabel \"images per chunk\"\nset ylabel \"images/s\"\nset yrange [0:*]\n";
  gp += "set multiplot layout 1," + std::to_string(panels) +
        " title \"h5feed bench sweep: images/s against chunk size\"\n";
  for (const std::string& compression : compressions) {
    gp += "set title " + Quoted("compression " + compression) + "\n";
    std::string plot;
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].compression != compression) continue;
      plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + Quoted(data_file) + " index " +
              std::to_string(i) + " using 1:2 with " +
              (series[i].defaults ? "points pointtype 7 pointsize 2" : "linespoints") + " title " +
              Quoted(SeriesTitle(series[i]));
    }
    // The reference loaders read the input as stored: one rate, across the panel.
    for (const Reference& reference : references) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.1f", reference.images_per_s);
      plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + rate +
              " with lines dashtype 2 linewidth 2 title " +
              Quoted("DataLoader + " + reference.name + " (the input as stored)");
    }
    gp += plot + "\n";
  }
  gp += "unset multiplot\n";
  return gp;
}

PlotOutcome DrawThroughputPlot(std::span<const SweepRow> rows, const std::string& dir,
                               const std::string& gnuplot) {
  PlotOutcome outcome;
  if (CollectSeries(rows).empty()) {
    outcome.message = "no grid run finished, so there is nothing to plot";
    return outcome;
  }
  const std::string data = dir + "/throughput.dat", script = dir + "/throughput.gp",
                    png = dir + "/throughput.png";
  try {
    WriteTextFile(data, ThroughputData(rows));
    WriteTextFile(script, ThroughputScript(rows, data, png));
  } catch (const Error& e) {
    outcome.message = e.what();
    return outcome;
  }
  const std::string program = FindProgram(gnuplot);
  if (program.empty()) {
    outcome.message = "gnuplot not found on PATH, so " + png +
                      " was not drawn; install it "
                      "(Debian: apt-get install gnuplot-nox) and run: gnuplot " +
                      script;
    return outcome;
  }
  const ProcessResult result = RunProcess({program, script});
  if (result.exit_code != 0) {
    outcome.message = "gnuplot failed (exit " + std::to_string(result.exit_code) + ") on " +
                      script + ": " + LastLine(result.err);
    return outcome;
  }
  outcome.drawn = true;
  return outcome;
}

}  // namespace h5feed::bench
