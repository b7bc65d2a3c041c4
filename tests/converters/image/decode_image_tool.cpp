// decode_image_tool IN OUT [--min HxW]
//
// Decodes one image file with h5feed's decoders (image_decoder.h) and writes OUT as the text
// header "H W\n" followed by H * W * 3 bytes of RGB, rows top to bottom. --min lets a JPEG
// decode at a reduced DCT scale no smaller than HxW. On failure prints the error message to
// stderr and exits with 1. Used by test_decode_matches_pil.py to compare against PIL.

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "image/image_decoder.h"

namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw h5feed::Error(h5feed::ErrorCode::kNotFound, "cannot open '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int Run(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--min")) {
    std::cerr << "usage: decode_image_tool IN OUT [--min HxW]\n";
    return 2;
  }
  int min_height = 0, min_width = 0;
  if (argc == 5 && std::sscanf(argv[4], "%dx%d", &min_height, &min_width) != 2) {
    std::cerr << "decode_image_tool: --min wants HxW, got '" << argv[4] << "'\n";
    return 2;
  }
  const std::string in_path = argv[1], out_path = argv[2];
  const std::vector<uint8_t> encoded = ReadFile(in_path);
  const h5feed::converters::image::DecodePlan plan =
      h5feed::converters::image::PlanDecode(encoded, in_path, min_height, min_width);
  std::vector<uint8_t> rgb(static_cast<size_t>(plan.bytes()));
  h5feed::converters::image::Decode(encoded, plan, in_path, rgb);

  std::ofstream out(out_path, std::ios::binary);
  out << plan.height << ' ' << plan.width << '\n';
  out.write(reinterpret_cast<const char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
  if (!out.flush()) {
    throw h5feed::Error(h5feed::ErrorCode::kIo, "cannot write '" + out_path + "'");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
}
