#pragma once
// The SampleSource of an image folder (`h5feed convert imagefolder`): decodes each file with
// the real library for its format and fits it to the stored size, within a memory budget
// (image_file_reader.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "image/resize.h"
#include "memory_budget.h"
#include "sample_source.h"
#include "sources/image_file_reader.h"

namespace h5feed {

struct ImageFolderOptions {
  // The stored size. Empty: every image that decodes must already have one size, checked when
  // the folder is opened (an error names offending files and their sizes); files that do not
  // decode are no evidence of the size, and are skipped by the conversion as broken.
  std::optional<image::Size> size;
  image::ResizeMode resize = image::ResizeMode::kCrop;
  bool allow_empty = false;  // keep the label of a class folder with no image
  int threads = 0;           // for the size check when `size` is empty; 0 = all cores
  // Images with more pixels are refused as decompression bombs (recorded like broken files);
  // 0 = no limit. The default is the size PIL refuses.
  int64_t max_pixels = kDefaultMaxPixels;
  // The memory decoding may use, shared with the conversion (ConvertOptions::memory); it must
  // outlive the source. Null: a budget of kDefaultMemoryLimit of the source's own.
  MemoryBudget* memory = nullptr;
};

// Lists `root` (image_folder.h) and, without options.size, reads every image's header to find
// the one size. Throws Error: kNotFound, kInvalidArgument (empty classes, mixed sizes, a bad
// option), kCorrupt (no image decodes).
std::unique_ptr<SampleSource> OpenImageFolder(const std::string& root,
                                              const ImageFolderOptions& options);

}  // namespace h5feed
