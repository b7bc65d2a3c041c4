#pragma once
// The SampleSource of an image folder (`h5feed convert imagefolder`): decodes each file with
// the real library for its format and fits it to the stored size, within a memory budget
// (image_file_reader.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "h5feed/option_names.h"
#include "image/resize.h"
#include "memory_budget.h"
#include "sample_source.h"
#include "sources/image_file_reader.h"

namespace h5feed::converters {

// 512: FFCV's ImageNet configurations store images with their longer side capped at 400 to
// 512 (its examples' max_resolution), which keeps the 224-256 pixel crops training takes at
// full quality while an ImageNet photo (about 400 x 350 on average, some 4000 pixels wide)
// never costs more than 768 KiB raw.
inline constexpr int kDefaultMaxSide = 512;

struct ImageFolderOptions {
  // The stored size: every image fitted to it by `resize` (a version 1 file). Empty: each
  // image is stored at its own size, its longer side capped at `max_side`; when those sizes
  // are all one (files that do not decode are no evidence of a size: the conversion skips them
  // as broken) and !own_size, the source has that one shape and the file is version 1, as
  // before version 2 existed; otherwise the source is own_size() (a version 2 file).
  std::optional<image::Size> size;
  // Without `size`: the cap on a stored image's longer side (image::CappedSize); 0 = no cap.
  int max_side = kDefaultMaxSide;
  // Without `size`: store each image at its own size even when all share one (for JPEG files:
  // a version 1 file holds raw pixels only).
  bool own_size = false;
  image::ResizeMode resize = image::ResizeMode::kCrop;
  bool allow_empty = false;  // keep the label of a class folder with no image
  int threads = 0;           // for the size check when `size` is empty; 0 = all cores
  // Images with more pixels are refused as decompression bombs (recorded like broken files);
  // 0 = no limit. The default is the size PIL refuses.
  int64_t max_pixels = kDefaultMaxPixels;
  // The memory decoding may use, shared with the conversion (ConvertOptions::memory); it must
  // outlive the source. Null: a budget of kDefaultMemoryLimit of the source's own.
  MemoryBudget* memory = nullptr;
  // How errors and skip reasons name these options: ConvertOptions::option_names.
  OptionNames option_names;
};

// Lists `root` (image_folder.h) and, without options.size, reads every image's header to find
// the stored sizes (decoding a file of a size only where that decides between one size and
// several); not with options.own_size and a max_side, where every image is stored at its own
// size and the largest is bounded by the cap (shape() is the cap's square). Throws Error:
// kNotFound, kInvalidArgument (empty classes, a bad option), kCorrupt (no image decodes, when
// headers are read).
std::unique_ptr<SampleSource> OpenImageFolder(const std::string& root,
                                              const ImageFolderOptions& options);

}  // namespace h5feed::converters
