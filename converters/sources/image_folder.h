#pragma once
// Lists an image folder exactly as torchvision.datasets.ImageFolder does, so that labels and
// sample order agree with what PyTorch users already have:
//   - every subfolder of the root (symlinks followed) is a class, sorted by name; the label is
//     its index;
//   - files are collected per class from sorted(os.walk(class_dir, followlinks=True)), each
//     folder's file names sorted, keeping names whose lower-case form ends with one of
//     kImageExtensions; everything else (notes.txt, files at the top level) is ignored;
//   - a class with no image is an error naming it, unless allow_empty (its index is kept).
// One difference: a symlink loop is walked once instead of forever.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/option_names.h"

namespace h5feed::converters {

inline constexpr std::array<std::string_view, 9> kImageExtensions = {
    ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"};

// True when `filename` ends with one of kImageExtensions, in any case.
bool HasImageExtension(std::string_view filename);

struct ImageFolderEntry {
  std::string path;  // relative to the root, '/'-separated, e.g. "cat/001.jpg"
  int64_t label = 0;
};

struct ImageFolderListing {
  std::string root;
  std::vector<std::string> classes;     // sorted class folder names; label i names classes[i]
  std::vector<ImageFolderEntry> files;  // in torchvision's order
};

// Throws Error(kNotFound) when `root` is not a folder or has no class folder, and
// Error(kInvalidArgument) for empty classes unless allow_empty.
// `names` spells the option "allow_empty" (ConvertOptions::option_names).
ImageFolderListing ListImageFolder(const std::string& root, bool allow_empty,
                                   const OptionNames& names = {});

}  // namespace h5feed::converters
