#include "conversion_runner.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "conversion.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "interrupt_guard.h"
#include "make_error.h"
#include "number_checks.h"
#include "output_path.h"
#include "parsed_option.h"
#include "progress_bar.h"
#include "reports/conversion_report.h"
#include "reports/report_json.h"

namespace h5feed::cli {
namespace {

// Skipped inputs warned of one by one while converting (the report lists as many).
constexpr int64_t kSkipsWarned = 20;

}  // namespace

void AddConversionFlags(CLI::App& command, ConversionFlags& flags, bool shuffle_by_default) {
  command
      .add_option("--chunk", flags.chunk,
                  "Images per chunk (at least 1; at most the images the file holds), the unit "
                  "the reader reads and decompresses. Leave it out for the default: as many as "
                  "make about 4 MiB")
      ->check(AtLeast(1, "leave --chunk out for the default, about 4 MiB a chunk"));
  command.add_option("--compression", flags.compression,
                     "none | zstd[:LEVEL] (1-22, default 3) | gzip[:LEVEL] (1-9, default 6; "
                     "deflate is the same). zstd files need h5feed's HDF5 plugin to be read by "
                     "other HDF5 programs; gzip needs nothing. Default: zstd:3 (imagefolder "
                     "--encoding jpeg: none, as JPEG files do not compress)");
  CLI::Option* seed_option =
      command
          .add_option_function<uint64_t>(
              "--seed",
              [&flags](const uint64_t& seed) {
                flags.seed = seed;
                flags.seed_given = true;
              },
              shuffle_by_default ? "Seed of the shuffled stored order (default 0)"
                                 : "Shuffle the stored order with this seed (default: keep the "
                                   "source order, which reads a chunked source fastest)")
          ->check(WholeUint64());
  // Both given, one of them would be dropped without a word (the seed, which shuffled nothing).
  command.add_flag("--no-shuffle", flags.no_shuffle, "Keep the source order")
      ->excludes(seed_option);
  command.add_option("--threads", flags.threads, "Worker threads (default: all cores)")
      ->check(AtLeast(0));
  command
      .add_option("--memory-limit", flags.memory_limit,
                  "Memory for images in flight, whatever their dimensions and --threads: "
                  "chunk buffers (at most half) and decoding. E.g. 512M, 4G (K, M, G, T are "
                  "powers of 1024). Large images are decoded row by row (PNG), at a reduced "
                  "DCT scale (JPEG) or one at a time; one that needs more than the limit "
                  "allows is skipped and recorded. The program's own ~25 MiB and zstd's "
                  "per-thread state (~1 MiB at level 3) come on top")
      ->capture_default_str();
  command.add_flag(
      "--force", flags.force,
      "Replace OUT if it exists as a file (never replaced otherwise; a device or FIFO never)");
  command.add_flag("-q,--quiet", flags.quiet, "Print nothing but errors");
  command.add_flag("--json", flags.json,
                   "Print the report as one JSON object (for scripts; h5feed.convert_* return "
                   "the same keys) instead of the summary, even with --quiet");
  command.add_flag("--strict", flags.strict,
                   "Fail on the first broken input instead of skipping and recording it");
  command
      .add_option(
          "--part", flags.part,
          "Convert only part K of N (numbered from 0) of the stored order, to OUT with "
          "-KKKKK-of-NNNNN before its suffix (train-00000-of-00004.h5), for `h5feed "
          "merge` to join; auto: K and N from the launcher (mpirun, torchrun, srun). "
          "Every part must be given the same input and options. A part exits 0 when it skipped "
          "broken inputs (mpirun would end the others otherwise); merge exits 3 for them")
      ->check(ParsedBy(
          [](const std::string& text) {
            converters::ParseConversionPart(text, converters::ProcessEnvironment);
          },
          "K/N|auto"));
}

void AddOwnSizeFlags(CLI::App& command, ConversionFlags& flags, OwnSizeScope scope) {
  OwnSizeFlags& given = flags.own_size_flags;
  given.scope = scope;
  const std::string applies =
      scope == OwnSizeScope::kWithoutSize ? "Without --size" : "Encoded images only";
  command
      .add_option("--max-pixels", flags.max_pixels,
                  "Skip (and record) images of more pixels than this, as decompression bombs; "
                  "0: no limit but h5feed's own, 2 GiB decoded (about 715 million RGB pixels). "
                  "The default is where PIL refuses images (2 x Image.MAX_IMAGE_PIXELS)")
      ->check(AtLeast(0))
      ->capture_default_str();
  given.max_side =
      command
          .add_option(
              "--max-side", flags.max_side,
              applies +
                  ": shrink an image whose longer side exceeds this (area "
                  "averaging, aspect kept, never enlarged); 0: no cap. The default is the "
                  "top of the 400-512 that FFCV's ImageNet configurations use: training crops "
                  "of 224-256 keep their quality, and no photo costs more than 768 KiB")
          ->check(AtLeast(0))
          ->capture_default_str();
  given.encoding = command.add_option(
      "--encoding", flags.encoding,
      applies +
          ": how each image is stored: raw (pixels), jpeg[:Q] (every image a JPEG "
          "file of quality Q, 1-100, default 90; baseline, 4:2:0), smart[:Q] (JPEG only the images "
          "of more than --smart-threshold bytes of pixels, as FFCV's smart mode)");
  given.encoding->capture_default_str();
  given.smart_threshold =
      command
          .add_option("--smart-threshold", flags.smart_threshold,
                      "With --encoding smart: images of more bytes of pixels (H*W*3) are "
                      "stored as JPEG, the others raw. Default 196608, one 256x256 RGB image")
          ->check(AtLeast(0));
  command.add_option("--chunk-bytes", flags.chunk_bytes,
                     "Bytes of a chunk before compression, e.g. 4M, 8MiB (K, M, G are powers "
                     "of 1024). Images at their own size are packed whole into chunks of this "
                     "size, raised to the largest image that may be stored; a version 1 file "
                     "takes the images per chunk nearest it. Default 4M");
}

int CheckLayoutFlags(const std::string& command_name, const std::string& input,
                     const ConversionFlags& flags, const converters::SampleSource* source) {
  const OwnSizeFlags& given = flags.own_size_flags;
  const bool max_side = given.max_side && given.max_side->count() > 0;
  if (!source) {
    if (flags.one_size && (max_side || flags.encoding != "raw")) {
      return ReportUsageError(command_name,
                              "--size stores every image at one size, which leaves nothing for " +
                                  (max_side ? "--max-side" : "--encoding " + flags.encoding) +
                                  " to do: give --size, or --max-side and --encoding");
    }
    if (given.smart_threshold && given.smart_threshold->count() > 0 &&
        flags.encoding.rfind("smart", 0) != 0) {
      return ReportUsageError(command_name, "--smart-threshold applies to --encoding smart only");
    }
    if (given.resize && given.resize->count() > 0 && !flags.one_size) {
      return ReportUsageError(command_name,
                              "--resize fits images to --size; without --size each image is "
                              "stored at its own size and none is fitted: give --size, or leave "
                              "--resize out");
    }
    return kExitOk;
  }
  if (given.scope == OwnSizeScope::kEncodedImages && max_side && !source->own_size()) {
    return ReportError(command_name,
                       MakeError(ErrorCode::kInvalidArgument,
                                 "--max-side applies to encoded images; {} holds an array of "
                                 "pixels, all of one size, rewritten as they are",
                                 input));
  }
  if (source->own_size() && flags.chunk > 0) {
    return ReportUsageError(
        command_name,
        "--chunk " + std::to_string(flags.chunk) + " counts images per chunk, but the images of " +
            input +
            " have different sizes and are stored each at its own (a version 2 file), in "
            "chunks of whole images of a number of bytes: give --chunk-bytes instead (default "
            "4M)");
  }
  return kExitOk;
}

OptionNames ConversionFlagNames() {
  // Each field (ConvertOptions::option_names) with the flag that sets it.
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"overwrite", "--force"},
      {"chunk_images", "--chunk"},
      {"chunk_bytes", "--chunk-bytes"},
      {"smart_threshold", "--smart-threshold"},
      {"strict", "--strict"},
      {"memory", "--memory-limit"},
      {"size", "--size"},
      {"max_side", "--max-side"},
      {"max_pixels", "--max-pixels"},
      {"allow_empty", "--allow-empty"},
      {"keep_crowd", "--keep-crowd"},
      {"image_suffix", "--image-suffix"},
      {"mask_suffix", "--mask-suffix"},
  };
  return [](std::string_view path) {
    for (const auto& [field, flag] : kFlags) {
      if (field == path) return std::string(flag);
    }
    return std::string();
  };
}

int RunConversion(
    const std::string& command_name, const std::string& input,
    const std::vector<std::string>& inputs,
    const std::function<std::unique_ptr<converters::SampleSource>(converters::MemoryBudget&)>&
        open_source,
    const ConversionFlags& flags, bool shuffle_by_default) {
  converters::ConvertOptions options;
  std::unique_ptr<converters::MemoryBudget> budget;
  try {
    options.encoding = StoredEncoding::Parse(flags.encoding);
    options.compression = flags.compression.empty() ? options.encoding.DefaultCompression()
                                                    : Compression::Parse(flags.compression);
    if (!flags.chunk_bytes.empty()) {
      options.chunk_bytes = converters::ParseMemorySize(flags.chunk_bytes);
      if (options.chunk_bytes <= 0) {
        throw MakeError(ErrorCode::kInvalidArgument, "--chunk-bytes {} is not a positive size",
                        flags.chunk_bytes);
      }
      if (options.chunk_bytes >= kMaxChunkBytes) {
        throw MakeError(ErrorCode::kInvalidArgument,
                        "--chunk-bytes {} is 4 GiB or more, and HDF5 cannot store chunks that "
                        "large; give less than 4G (default: 4M)",
                        flags.chunk_bytes);
      }
    }
    budget =
        std::make_unique<converters::MemoryBudget>(converters::ParseMemorySize(flags.memory_limit));
    if (!flags.part.empty())
      options.part = converters::ParseConversionPart(flags.part, converters::ProcessEnvironment);
    converters::CheckOutputPath(flags.output);
  } catch (const std::exception& e) {
    ReportError(command_name, e);
    return kExitUsage;
  }
  options.memory = budget.get();
  options.chunk_images = flags.chunk;
  options.shuffle = !flags.no_shuffle && (shuffle_by_default || flags.seed_given);
  options.seed = flags.seed;
  options.threads = flags.threads;
  options.overwrite = flags.force;
  options.option_names = ConversionFlagNames();
  options.strict = flags.strict;
  options.smart_threshold = flags.smart_threshold;
  const std::string output = converters::PartPath(flags.output, options.part);
  if (const std::string problem = converters::OutputProblem(output, inputs); !problem.empty()) {
    return ReportUsageError(command_name, problem);
  }
  try {
    converters::CheckOutputPlace(output, flags.force, options.option_names);
  } catch (const std::exception& e) {
    ReportError(command_name, e);
    return kExitUsage;
  }

  InterruptGuard interrupt;
  options.cancel = &interrupt.flag();
  try {
    std::unique_ptr<converters::SampleSource> source = open_source(*budget);
    if (const int code = CheckLayoutFlags(command_name, input, flags, source.get())) return code;
    const auto [first, end] = converters::PartSlice(source->count(), options.part);
    const int64_t offered = end - first;
    bool show_bar = !flags.quiet && ProgressBar::StderrIsTerminal();
    ProgressBar bar("converting", "img", offered, show_bar);
    options.on_progress = [&bar](const converters::ConvertProgress& p) {
      bar.Update(p.done, p.skipped);
    };
    int64_t warned = 0;
    if (!flags.quiet) {
      // The first skips as they happen; thousands of lines would bury the progress bar, and
      // the report counts them all.
      options.on_skip = [&bar, &command_name, &warned](const SkippedSource& s) {
        if (++warned > kSkipsWarned) return;
        const std::string prefix = "h5feed " + command_name + ": warning: ";
        bar.Message(prefix + "skipped " + s.source + ": " + s.reason);
        if (warned == kSkipsWarned) {
          bar.Message(prefix +
                      "further skipped inputs are not shown as they happen; the "
                      "report counts them and the file records them");
        }
      };
    }
    const converters::ConvertReport report = converters::Convert(*source, output, options);
    bar.Finish();
    const ReportValue value = converters::ConversionValue(report);
    if (flags.json) {
      std::fputs(reports::ToJson(value).c_str(), stdout);
    } else if (!flags.quiet) {
      std::fputs(reports::ConversionText(value, input).c_str(), stdout);
    }
    // A part's skipped inputs are recorded in it, and merge exits kExitSkipped for them: a part
    // exits 0, since mpirun ends every other part of the job when one exits non-zero.
    return report.skipped.empty() || !options.part.whole() ? kExitOk : kExitSkipped;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kCancelled) {
      std::fprintf(stderr, "\nh5feed %s: %s\n", command_name.c_str(), e.what());
      return interrupt.signal_number() ? interrupt.exit_code() : kExitInterrupted;
    }
    return ReportInputError(command_name, e);
  } catch (const std::exception& e) {
    return ReportInputError(command_name, e);
  }
}

}  // namespace h5feed::cli
