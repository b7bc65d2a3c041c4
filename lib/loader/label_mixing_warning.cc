// WarnIfLabelsUnmixed (loader/label_mixing_warning.h).

#include "loader/label_mixing_warning.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "byte_size.h"
#include "loader/options_check.h"
#include "loader/warning.h"
#include "sampler/epoch_order.h"
#include "sampler/label_mixing.h"

namespace h5feed::loader {
namespace {

std::string Fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// "a batch of 256 holds 8.4 classes (label entropy 3.04 bits)"
std::string Holds(const sampler::BatchMixing& mixing) {
  return Fixed(mixing.classes_per_batch, 1) + " classes (label entropy " +
         Fixed(mixing.entropy_bits, 2) + " bits)";
}

// `h5feed rechunk` writing a shuffled copy beside the file: train.h5 -> train-shuffled.h5,
// with the dataset names the loader was given (rechunk finds the same ones by default).
std::string RechunkCommand(const LoaderOptions& options, const std::string& path) {
  const std::filesystem::path source(path);
  const std::filesystem::path copy =
      source.parent_path() / (source.stem().string() + "-shuffled" + source.extension().string());
  std::string command = "h5feed rechunk " + path + " " + copy.string() + " --seed 0";
  if (!options.images_dataset.empty()) command += " --images " + options.images_dataset;
  if (!options.labels_dataset.empty()) command += " --labels " + options.labels_dataset;
  return command;
}

// The advice on reading the file as it is: the window that mixes, and its cache (about 2W
// chunks: W in use and W loading ahead; Open says when the cache needs more).
std::string WindowAdvice(const LoaderOptions& options, const index::DatasetIndex& dataset,
                         const sampler::LabelMixingMeter& meter,
                         const sampler::LabelMixing& mixing) {
  const sampler::SampleGeometry geometry = dataset.chunk_rows();
  const std::optional<int64_t> window = meter.WindowThatMixes(
      geometry, options.sampler, options.seed, options.batch_size, mixing.random);
  if (!window) return "";
  const int64_t chunk_bytes = dataset.chunk_bytes();
  const std::string sampler = SamplerOptions{options.sampler.kind, *window}.ToString();
  if (*window >= dataset.chunk_count()) {
    return " Read as it is, only a window of all " + std::to_string(dataset.chunk_count()) +
           " chunks (sampler " + sampler +
           ", the whole file in the cache: " + OptionName(options, "cache_bytes") + " of " +
           ToString(ByteSize(dataset.chunk_count() * chunk_bytes)) + ") mixes as well.";
  }
  return " Read as it is, sampler " + sampler + " reaches the bar, with a cache of about " +
         std::to_string(2 * *window) + " chunks (" + OptionName(options, "cache_bytes") + " of " +
         ToString(ByteSize(2 * *window * chunk_bytes)) + ").";
}

}  // namespace

bool ChecksLabelMixing(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  return options.check_label_mixing && sampler::UsesWindow(options.sampler) && dataset.labelled;
}

void WarnIfLabelsUnmixed(const LoaderOptions& options, const index::DatasetIndex& dataset,
                         std::span<const int64_t> order) {
  if (!ChecksLabelMixing(options, dataset) || order.empty() ||
      dataset.samples > sampler::LabelMixingMeter::kMaxRows) {
    return;
  }
  const sampler::LabelMixingMeter meter(dataset.labels);
  if (meter.classes() < 2) return;
  const sampler::LabelMixing mixing = meter.Measure(order, options.batch_size);
  if (!sampler::MixesTooFewClasses(mixing)) return;
  Warn(options, "batches of " + dataset.path + " mix few classes: under sampler " +
                    options.sampler.ToString() + " a batch of " +
                    std::to_string(options.batch_size) + " holds " + Holds(mixing.order) +
                    " where a random order's holds " + Holds(mixing.random) + ", " +
                    Fixed(mixing.entropy_ratio, 2) + " of its entropy (the bar is " +
                    Fixed(sampler::kMinEntropyRatio, 2) +
                    "). The rows are probably stored grouped by label " +
                    "(as a walk of class folders writes them), and a window of " +
                    std::to_string(options.sampler.window) + " chunks of " +
                    std::to_string(dataset.chunk_samples) +
                    " rows holds few classes; training on such batches goes wrong without any "
                    "error. Write a shuffled copy once: " +
                    RechunkCommand(options, dataset.path) + "." +
                    WindowAdvice(options, dataset, meter, mixing) +
                    " (check_label_mixing = false silences this check.)");
}

}  // namespace h5feed::loader
