#pragma once
// The SampleSource of an image folder (`h5feed convert imagefolder`): decodes each file with
// the real library for its format and fits it to the stored size.

#include <memory>
#include <optional>
#include <string>

#include "image/resize.h"
#include "sample_source.h"

namespace h5feed {

struct ImageFolderOptions {
  // The stored size. Empty: every image must already have one size, checked when the
  // folder is opened (an error names offending files and their sizes).
  std::optional<image::Size> size;
  image::ResizeMode resize = image::ResizeMode::kCrop;
  bool allow_empty = false;  // keep the label of a class folder with no image
  int threads = 0;           // for the size check when `size` is empty; 0 = all cores
};

// Lists `root` (image_folder.h) and, without options.size, reads every image's header to find
// the one size. Throws Error: kNotFound, kInvalidArgument (empty classes, mixed sizes).
std::unique_ptr<SampleSource> OpenImageFolder(const std::string& root,
                                              const ImageFolderOptions& options);

}  // namespace h5feed
