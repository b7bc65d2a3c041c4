#pragma once
// `h5feed convert segmentation` and `h5feed convert coco`: images with the masks or boxes
// that follow them (docs/format.md, "Masks and boxes").

#include "commands.h"

namespace CLI {
class App;
}

namespace h5feed::cli {

void AddConvertSegmentation(CLI::App& convert, Runner& run);  // IMAGES_DIR MASKS_DIR OUT
void AddConvertCoco(CLI::App& convert, Runner& run);          // ANNOTATIONS.json IMAGES_DIR OUT

}  // namespace h5feed::cli
