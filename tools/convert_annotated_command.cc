#include "convert_annotated_command.h"

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "command_error.h"
#include "conversion_runner.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "image_size_option.h"
#include "input_paths.h"
#include "number_checks.h"
#include "parsed_option.h"
#include "sources/coco_source.h"
#include "sources/segmentation_source.h"

namespace h5feed::cli {
namespace {

// The options every annotated source shares: how its images are fitted (FitOptions).
struct FitFlags {
  std::string size;
  converters::image::ResizeMode resize = converters::image::ResizeMode::kCrop;
  int mask_fill = 0;  // segmentation only: InRange keeps it in 0..255
};

void AddFitFlags(CLI::App& command, FitFlags& fit, ConversionFlags& flags, const char* follows) {
  command.add_option(
      "--size", fit.size,
      std::string("Store every image at HxW (height first), e.g. 512x512 (a version 1 file), ") +
          follows +
          ". Without it each image is stored at its own size, its longer side "
          "capped by --max-side (a version 2 file)");
  CLI::Option* resize =
      AddEnumOption(command, "--resize", fit.resize,
                    "How an image is fitted to --size: crop (scale the shorter side, "
                    "center-crop), stretch, or pad (fit inside, zero borders)");
  AddOwnSizeFlags(command, flags, OwnSizeScope::kWithoutSize);
  flags.own_size_flags.resize = resize;
  AddConversionFlags(command, flags, true);
}

// The FitOptions of the flags, or the exit code of a usage error (reported as `name`).
int FitOptionsOf(const std::string& name, const FitFlags& fit, const ConversionFlags& flags,
                 converters::FitOptions& options) {
  options.max_side = flags.max_side;
  options.max_pixels = flags.max_pixels;
  options.threads = flags.threads;
  options.option_names = ConversionFlagNames();
  options.resize = fit.resize;
  options.mask_fill = static_cast<uint8_t>(fit.mask_fill);
  if (fit.size.empty()) return kExitOk;
  try {
    options.size = ParseSize(fit.size);
  } catch (const Error& e) {
    ReportError(name, e);
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void AddConvertSegmentation(CLI::App& convert, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto fit = std::make_shared<FitFlags>();
  auto images = std::make_shared<std::string>();
  auto masks = std::make_shared<std::string>();
  auto options = std::make_shared<converters::SegmentationOptions>();
  CLI::App* command = convert.add_subcommand(
      "segmentation",
      "Convert images with their segmentation masks, paired by name (Pascal VOC: JPEGImages/ "
      "and SegmentationClass/; ADE20K, Cityscapes): the field `mask` holds each image's class "
      "ids, a palette PNG's indices or a gray PNG's values (16-bit: uint16), never colours; "
      "255 (VOC's void) stays 255. An image without a mask, or with a mask of another size, is "
      "skipped with its reason");
  command->add_option("IMAGES_DIR", *images, "The images (subfolders walked)")
      ->required()
      ->check(ExistingInput(InputKind::kFolder));
  command->add_option("MASKS_DIR", *masks, "The PNG masks, named as their images")
      ->required()
      ->check(ExistingInput(InputKind::kFolder));
  command->add_option("OUT", flags->output, "The HDF5 file to write")->required();
  command->add_option("--image-suffix", options->image_suffix,
                      "Removed from an image's name before pairing (Cityscapes: _leftImg8bit)");
  command->add_option("--mask-suffix", options->mask_suffix,
                      "Removed from a mask's name before pairing (Cityscapes: _gtFine_labelIds)");
  command
      ->add_option("--image-list", options->image_list,
                   "Convert only the images named in this text file, one name stem a line "
                   "(Pascal VOC: ImageSets/Segmentation/train.txt or val.txt)")
      ->check(ExistingInput(InputKind::kFile));
  AddFitFlags(*command, *fit, *flags, "its mask fitted with it by nearest neighbour");
  command
      ->add_option("--mask-fill", fit->mask_fill,
                   "The class id of a mask's border under --resize pad (the image's border is "
                   "black): 0 to 255; 255 is Pascal VOC's and Cityscapes' \"ignore\", which "
                   "losses leave out")
      ->check(InRange(0, 255))
      ->capture_default_str();
  command->callback([=, &run] {
    run = [=] {
      const std::string name = "convert segmentation";
      flags->one_size = !fit->size.empty();
      if (const int usage = CheckLayoutFlags(name, *images, *flags, nullptr)) return usage;
      converters::SegmentationOptions source_options = *options;
      if (const int usage = FitOptionsOf(name, *fit, *flags, source_options.fit)) return usage;
      return RunConversion(
          name, *images, {*images, *masks, options->image_list},
          [&](converters::MemoryBudget& memory) {
            source_options.fit.memory = &memory;
            return converters::OpenSegmentation(*images, *masks, source_options);
          },
          *flags, true);
    };
  });
}

void AddConvertCoco(CLI::App& convert, Runner& run) {
  auto flags = std::make_shared<ConversionFlags>();
  auto fit = std::make_shared<FitFlags>();
  auto annotations = std::make_shared<std::string>();
  auto images = std::make_shared<std::string>();
  auto keep_crowd = std::make_shared<bool>(false);
  CLI::App* command = convert.add_subcommand(
      "coco",
      "Convert COCO detection data (an instances JSON and its images): the field `boxes` holds "
      "each image's boxes (xyxy pixels, from COCO's xywh) and `box_labels` their classes, "
      "COCO's category ids mapped to 0..C-1 in id order (the table in /box_classes and "
      "/box_class_ids), and the box values `iscrowd` and `area` (COCO's, as the JSON gives "
      "them) beside them. Images without annotations are kept with no box; crowd annotations "
      "are dropped unless --keep-crowd");
  command
      ->add_option("ANNOTATIONS", *annotations, "The instances JSON, e.g. instances_val2017.json")
      ->required()
      ->check(ExistingInput(InputKind::kFile));
  command->add_option("IMAGES_DIR", *images, "The folder the JSON's file_name entries are in")
      ->required()
      ->check(ExistingInput(InputKind::kFolder));
  command->add_option("OUT", flags->output, "The HDF5 file to write")->required();
  command->add_flag("--keep-crowd", *keep_crowd,
                    "Keep the boxes of crowd annotations (iscrowd 1), which torchvision's "
                    "detection references drop");
  AddFitFlags(*command, *fit, *flags,
              "its boxes scaled, shifted and clipped with it (a box left "
              "under 1 pixel wide or tall dropped)");
  command->callback([=, &run] {
    run = [=] {
      const std::string name = "convert coco";
      flags->one_size = !fit->size.empty();
      if (const int usage = CheckLayoutFlags(name, *images, *flags, nullptr)) return usage;
      converters::CocoOptions options;
      options.keep_crowd = *keep_crowd;
      if (const int usage = FitOptionsOf(name, *fit, *flags, options.fit)) return usage;
      return RunConversion(
          name, *annotations, {*annotations, *images},
          [&](converters::MemoryBudget& memory) {
            options.fit.memory = &memory;
            return converters::OpenCoco(*annotations, *images, options);
          },
          *flags, true);
    };
  });
}

}  // namespace h5feed::cli
