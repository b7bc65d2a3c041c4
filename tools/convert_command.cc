// `h5feed convert imagefolder | cifar | npy | segmentation | coco`: image datasets to an h5feed
// file (segmentation and coco: convert_annotated_command.cc).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_error.h"
#include "commands.h"
#include "conversion_runner.h"
#include "convert_annotated_command.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "h5feed/field.h"
#include "h5feed/writer.h"
#include "image_size_option.h"
#include "input_paths.h"
#include "make_error.h"
#include "parsed_option.h"
#include "sources/cifar_source.h"
#include "sources/image_folder_source.h"
#include "sources/npy_source.h"
#include "subcommand_choice.h"

namespace h5feed::cli {
namespace {

void AddImageFolder(CLI::App& convert, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto input = std::make_shared<std::string>();
  auto size = std::make_shared<std::string>();
  auto resize =
      std::make_shared<converters::image::ResizeMode>(converters::image::ResizeMode::kCrop);
  auto allow_empty = std::make_shared<bool>(false);
  CLI::App* command = convert.add_subcommand(
      "imagefolder",
      "Convert a torchvision-style image folder (SRC_DIR/<class>/<image>): classes are the "
      "subfolders sorted by name, labels their index, as torchvision's ImageFolder");
  command->add_option("SRC_DIR", *input, "The image folder")
      ->required()
      ->check(ExistingInput(InputKind::kFolder));
  command->add_option("OUT", flags->output, "The HDF5 file to write")->required();
  command->add_option(
      "--size", *size,
      "Store every image at HxW (height first), e.g. 224x224 (a version 1 file). Without it "
      "each image is stored at its own size, its longer side capped by --max-side (a version "
      "2 file, unless all those sizes are one and --encoding is raw: then version 1, as "
      "before). Files that do not decode are skipped, whatever their headers say");
  flags->own_size_flags.resize =
      AddEnumOption(*command, "--resize", *resize,
                    "How an image is fitted to --size: crop (scale the shorter side, "
                    "center-crop), stretch, or pad (fit inside, zero borders)");
  command->add_flag("--allow-empty", *allow_empty,
                    "Accept class folders with no image (their label is kept)");
  AddOwnSizeFlags(*command, *flags, OwnSizeScope::kWithoutSize);
  AddConversionFlags(*command, *flags, true);
  command->callback([=, &run] {
    run = [=] {
      flags->one_size = !size->empty();
      if (const int usage = CheckLayoutFlags("convert imagefolder", *input, *flags, nullptr)) {
        return usage;
      }
      converters::ImageFolderOptions options;
      options.max_side = flags->max_side;
      options.own_size = flags->encoding != "raw";
      options.allow_empty = *allow_empty;
      options.max_pixels = flags->max_pixels;
      options.threads = flags->threads;
      options.option_names = ConversionFlagNames();
      options.resize = *resize;
      if (!size->empty()) {
        try {
          options.size = ParseSize(*size);
        } catch (const Error& e) {
          ReportError("convert imagefolder", e);
          return kExitUsage;
        }
      }
      return RunConversion(
          "convert imagefolder", *input, {*input},
          [&](converters::MemoryBudget& memory) {
            options.memory = &memory;
            return converters::OpenImageFolder(*input, options);
          },
          *flags, true);
    };
  });
}

void AddCifar(CLI::App& convert, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto input = std::make_shared<std::string>();
  auto split =
      std::make_shared<converters::CifarOptions::Split>(converters::CifarOptions::Split::kTrain);
  auto labels =
      std::make_shared<converters::CifarOptions::Labels>(converters::CifarOptions::Labels::kFine);
  CLI::App* command = convert.add_subcommand(
      "cifar",
      "Convert the CIFAR-10 or CIFAR-100 binary version (data_batch_*.bin / test_batch.bin, or "
      "train.bin / test.bin), with class names from batches.meta.txt or *_label_names.txt");
  command->add_option("SRC", *input, "The folder holding the .bin files")
      ->required()
      ->check(ExistingInput(InputKind::kFolder));
  command->add_option("OUT", flags->output, "The HDF5 file to write")->required();
  AddEnumOption(*command, "--split", *split, "train or test");
  AddEnumOption(*command, "--labels", *labels, "CIFAR-100 only: fine (100 classes) or coarse (20)");
  AddConversionFlags(*command, *flags, true);
  command->callback([=, &run] {
    run = [=] {
      converters::CifarOptions options;
      options.split = *split;
      options.labels = *labels;
      return RunConversion(
          "convert cifar", *input, {*input},
          [&](converters::MemoryBudget&) { return converters::OpenCifar(*input, options); }, *flags,
          true);
    };
  });
}

// "NAME=FILE.npy" as a field's name and file. Throws Error(kInvalidArgument) without '=', or
// for a name no field may take (CheckFieldSpec's: '/', a reserved name), which the command
// line can tell before any file is read.
converters::NpyFieldFile NpyFieldOf(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "--field {} is not NAME=FILE.npy (the field's name, then its array)", text);
  }
  FieldSpec name_only;  // a uint8 scalar, which passes every check but the name's
  name_only.name = text.substr(0, equals);
  CheckFieldSpec(name_only);
  return {name_only.name, text.substr(equals + 1)};
}

// npy's usage line shows its paths as their name says they are given, IMAGES.npy [LABELS.npy]
// OUT: CLI11 would add "(2x)", the fewest it takes, as if OUT came twice.
class PathsAsNamedUsage : public CLI::Formatter {
 public:
  std::string make_option_usage(const CLI::Option* option) const override {
    return option->get_name();
  }
};

void AddNpy(CLI::App& convert, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* command = convert.add_subcommand(
      "npy",
      "Convert a NumPy uint8 array of images, (N, H, W, C) or (N, H, W), memory-mapped and "
      "never loaded whole, with optional integer labels (N)");
  command
      ->add_option("IMAGES.npy [LABELS.npy] OUT", *paths, "The arrays, then the HDF5 file to write")
      ->required()
      ->expected(2, 3)
      ->option_text("TEXT x 2 or 3 REQUIRED");
  command->formatter(std::make_shared<PathsAsNamedUsage>());
  auto fields = std::make_shared<std::vector<std::string>>();
  command
      ->add_option("--field", *fields,
                   "NAME=FILE.npy: carry the array in FILE.npy as field NAME, row i image "
                   "i's value (repeatable): a numeric array (N, ...) (bool, int8-64, "
                   "uint8-64, float16/32/64), or (N,) byte strings (bytes) or str (text)")
      ->allow_extra_args(false)  // one value an occurrence: `--field a=a.npy IMAGES OUT`
      ->check(ParsedBy([](const std::string& text) { NpyFieldOf(text); }, "NAME=FILE.npy"));
  AddConversionFlags(*command, *flags, true);
  command->callback([=, &run] {
    run = [=] {
      ConversionFlags with_output = *flags;
      with_output.output = paths->back();
      std::string images = (*paths)[0];
      std::string labels = paths->size() == 3 ? (*paths)[1] : std::string();
      std::vector<converters::NpyFieldFile> field_files;
      for (const std::string& text : *fields) {
        converters::NpyFieldFile field = NpyFieldOf(text);
        for (const converters::NpyFieldFile& earlier : field_files) {
          if (earlier.name == field.name) {
            return ReportUsageError(
                "convert npy", "--field " + field.name + " is given twice; a field has one file");
          }
        }
        field_files.push_back(std::move(field));
      }
      std::vector<std::pair<std::string, std::string>> inputs = {{"images file ", images},
                                                                 {"labels file ", labels}};
      for (const converters::NpyFieldFile& field : field_files) {
        inputs.emplace_back("field " + field.name + "'s file ", field.path);
      }
      std::vector<std::string> paths_read;
      for (const auto& [role, path] : inputs) {
        if (role == "labels file " && paths->size() < 3) continue;  // none given
        const std::string problem = InputProblem(path, InputKind::kFile);
        if (!problem.empty()) return ReportUsageError("convert npy", role + problem);
        paths_read.push_back(path);
      }
      return RunConversion(
          "convert npy", images, paths_read,
          [&](converters::MemoryBudget&) {
            return converters::OpenNpy(images, labels, field_files);
          },
          with_output, true);
    };
  });
}

}  // namespace

void AddConvertCommand(CLI::App& app, Runner& run) {
  CLI::App* convert = app.add_subcommand(
      "convert", "Convert an image dataset to one chunked, compressed uint8 HDF5 file");
  AddImageFolder(*convert, run);
  AddCifar(*convert, run);
  AddNpy(*convert, run);
  AddConvertSegmentation(*convert, run);
  AddConvertCoco(*convert, run);
  RequireOneSubcommand(*convert, "source", " (an HDF5 file: h5feed rechunk)");
}

}  // namespace h5feed::cli
