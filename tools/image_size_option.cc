#include "image_size_option.h"

#include <stdexcept>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::cli {

converters::image::Size ParseSize(const std::string& text) {
  size_t x = text.find_first_of("xX");
  try {
    size_t used = 0;
    int height = std::stoi(text.substr(0, x), &used);
    if (used != (x == std::string::npos ? text.size() : x)) throw std::invalid_argument(text);
    int width = height;
    if (x != std::string::npos) {
      std::string rest = text.substr(x + 1);
      width = std::stoi(rest, &used);
      if (used != rest.size()) throw std::invalid_argument(text);
    }
    if (height > 0 && width > 0 && height <= 65535 && width <= 65535) return {height, width};
    // A size, but not one an image can have.
    throw MakeError(ErrorCode::kInvalidArgument,
                    "--size {}: each side must be from 1 to 65535 pixels, as HxW (height first) "
                    "or one number for a square",
                    text);
  } catch (const std::logic_error&) {}
  throw MakeError(ErrorCode::kInvalidArgument,
                  "--size {} is not a size: give HxW (height first), e.g. 224x224, or one number",
                  text);
}

}  // namespace h5feed::cli
