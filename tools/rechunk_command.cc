// `h5feed rechunk IN.h5 OUT.h5`: an existing HDF5 image dataset into h5feed's format: an array
// of pixels (hdf5_source.h) as a version 1 file, or a dataset of encoded image files
// (encoded_hdf5_source.h) with each image at its own size, as a version 2 file, as is an h5feed
// file of images at their own size (own_size_file_source.h); the file's other
// datasets of a value per image carried as fields (hdf5_fields.h).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_error.h"
#include "commands.h"
#include "conversion_runner.h"
#include "input_paths.h"
#include "sources/encoded_hdf5_source.h"

namespace h5feed::cli {

void AddRechunkCommand(CLI::App& app, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto input = std::make_shared<std::string>();
  auto options = std::make_shared<converters::EncodedHdf5Options>();
  CLI::App* command = app.add_subcommand(
      "rechunk",
      "Rewrite any HDF5 file with a uint8 image dataset (NHWC, NCHW, or N x H x W grayscale, "
      "written as H x W x 1; any chunking and filters, e.g. written by h5py) in h5feed's "
      "format, with new chunking and compression; or one whose images are encoded files (a "
      "1-D dataset of variable-length bytes, JPEG, PNG, ...), each stored at its own size; or "
      "an h5feed file of images at their own size, with new chunks, compression or encoding");
  command
      ->add_option("IN", *input,
                   "The HDF5 file to read: a path, or an http(s):// or s3:// URL (docs/remote.md)")
      ->required()
      ->check(ExistingInput(InputKind::kFileOrUrl));
  command->add_option("OUT", flags->output, "The HDF5 file to write")->required();
  command->add_option("--images", options->images,
                      "The image dataset (default: 'images', else the only 4-D uint8 dataset, "
                      "else the only 3-D one, else the only 1-D dataset of encoded images)");
  command->add_option("--labels", options->labels,
                      "The integer label dataset (default: 'labels' if present, else all 0)");
  auto chosen = std::make_shared<std::vector<std::string>>();
  auto no_fields = std::make_shared<bool>(false);
  CLI::Option* field =
      command
          ->add_option("--field", *chosen,
                       "Carry this dataset as a field (repeatable; these only, in this "
                       "order). Default: every dataset of one value per image (first "
                       "dimension N) but the images, labels and h5feed's own: numeric "
                       "arrays, strings (text), variable-length uint8 and fixed-length byte "
                       "strings (bytes); the report notes the datasets left out")
          ->allow_extra_args(false);  // one value an occurrence: `--field a IN OUT`
  command->add_flag("--no-fields", *no_fields, "Carry no field: the images and labels only")
      ->excludes(field);
  AddOwnSizeFlags(*command, *flags, OwnSizeScope::kEncodedImages);
  AddConversionFlags(*command, *flags, false);
  command->callback([=, &run] {
    run = [=] {
      if (const int usage = CheckLayoutFlags("rechunk", *input, *flags, nullptr)) return usage;
      for (auto name = chosen->begin(); name != chosen->end(); ++name) {
        if (std::find(chosen->begin(), name, *name) != name) {
          return ReportUsageError("rechunk", "--field " + *name + " is given twice");
        }
      }
      return RunConversion(
          "rechunk", *input, {*input},
          [&](converters::MemoryBudget& memory) {
            converters::EncodedHdf5Options source = *options;
            if (*no_fields) {
              source.fields = std::vector<std::string>{};
            } else if (!chosen->empty()) {
              source.fields = *chosen;
            }
            source.max_side = flags->max_side;
            source.max_pixels = flags->max_pixels;
            source.threads = flags->threads;
            source.memory = &memory;
            source.option_names = ConversionFlagNames();
            return converters::OpenRechunkSource(*input, source);
          },
          *flags, false);
    };
  });
}

}  // namespace h5feed::cli
