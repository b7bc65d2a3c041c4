// encode_jpeg_tool IN.rgb HEIGHT WIDTH OUT.jpg VARIANT
//
// Writes OUT.jpg from IN.rgb (HEIGHT * WIDTH * 3 bytes of RGB, or * 4 of CMYK for the cmyk and
// ycck variants) with libjpeg's own API, for the JPEG variants cameras, scanners and old
// tools write and PIL 9.4 cannot: arithmetic coding (sequential and progressive), restart
// markers, 4:4:0 and 4:1:1 chroma subsampling, RGB without the YCbCr transform, and CMYK
// stored as YCCK or as plain CMYK. test_decode_matches_pil.py decodes each with h5feed and PIL.

// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <jpeglib.h>

namespace {

struct Variant {
  const char* name;
  J_COLOR_SPACE stored;  // the colour space in the file
  int luma_h, luma_v;    // the first component's sampling factors; the others are 1x1
  bool arithmetic, progressive;
  unsigned restart_rows;
};

constexpr Variant kVariants[] = {
    {"arithmetic", JCS_YCbCr, 2, 2, true, false, 0},
    {"arithmetic_progressive", JCS_YCbCr, 2, 2, true, true, 0},
    {"restart", JCS_YCbCr, 2, 2, false, false, 1},
    {"440", JCS_YCbCr, 1, 2, false, false, 0},
    {"411", JCS_YCbCr, 4, 1, false, false, 0},
    {"rgb", JCS_RGB, 1, 1, false, false, 0},
    {"ycck", JCS_YCCK, 2, 2, false, false, 0},
    {"cmyk", JCS_CMYK, 1, 1, false, false, 0},
};

int Run(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: encode_jpeg_tool IN.rgb HEIGHT WIDTH OUT.jpg VARIANT\n";
    return 2;
  }
  const Variant* variant = nullptr;
  for (const Variant& v : kVariants) {
    if (argv[5] == std::string(v.name)) variant = &v;
  }
  if (variant == nullptr) {
    std::cerr << "encode_jpeg_tool: unknown variant " << argv[5] << "\n";
    return 2;
  }
  const bool cmyk = variant->stored == JCS_YCCK || variant->stored == JCS_CMYK;
  const int height = std::atoi(argv[2]), width = std::atoi(argv[3]), channels = cmyk ? 4 : 3;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<unsigned char> pixels{std::istreambuf_iterator<char>(in),
                                          std::istreambuf_iterator<char>()};
  if (pixels.size() != static_cast<size_t>(height) * width * channels) {
    std::cerr << "encode_jpeg_tool: " << argv[1] << " holds " << pixels.size() << " bytes\n";
    return 2;
  }
  FILE* out = std::fopen(argv[4], "wb");
  if (out == nullptr) {
    std::cerr << "encode_jpeg_tool: cannot create " << argv[4] << "\n";
    return 1;
  }
  jpeg_compress_struct cinfo;
  jpeg_error_mgr errors;
  cinfo.err = jpeg_std_error(&errors);  // libjpeg's default: print and exit on error
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, out);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = channels;
  cinfo.in_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_colorspace(&cinfo, variant->stored);
  jpeg_set_quality(&cinfo, 90, TRUE);
  for (int c = 0; c < cinfo.num_components; ++c) {
    const bool full = c == 0 || (variant->stored == JCS_YCCK && c == 3);  // Y and K
    cinfo.comp_info[c].h_samp_factor = full ? variant->luma_h : 1;
    cinfo.comp_info[c].v_samp_factor = full ? variant->luma_v : 1;
  }
  cinfo.arith_code = variant->arithmetic ? TRUE : FALSE;
  cinfo.restart_in_rows = static_cast<int>(variant->restart_rows);
  if (variant->progressive) jpeg_simple_progression(&cinfo);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row =
        const_cast<unsigned char*>(pixels.data()) + size_t{cinfo.next_scanline} * width * channels;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return std::fclose(out) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
