// write_geometry_test_file OUT.h5 [--own-size] [--images N] [--box-values]
//
// Writes geometry_test_file.h's file with the library's Writer: coordinate images with a uint16
// mask `mask`, boxes `boxes` and their classes `box_labels`, of one image size (60 x 80) or,
// with --own-size, of images at their own size; N images (default 30); with --box-values, the
// per-box values `box_ids` too. For
// test_h5py_reads_geometric_fields.py and the Python loader's tests. Exit status: 0 written,
// 1 h5feed error (message on stderr), 2 bad usage.

#include <cstdio>
#include <string>

#include "h5feed/error.h"
#include "lib/loader/geometry_test_file.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: write_geometry_test_file OUT.h5 [--own-size] [--images N] "
                 "[--box-values]\n");
    return 2;
  }
  bool own_size = false;
  bool box_values = false;
  int64_t images = 30;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--own-size") {
      own_size = true;
    } else if (flag == "--box-values") {
      box_values = true;
    } else if (flag == "--images" && i + 1 < argc) {
      images = std::stoll(argv[++i]);
    } else {
      std::fprintf(stderr, "write_geometry_test_file: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    h5feed::testing::WriteGeometryTestFile(argv[1], images, own_size, h5feed::FieldType::kUint16,
                                           "zstd", false, box_values);
  } catch (const h5feed::Error& e) {
    std::fprintf(stderr, "write_geometry_test_file: %s\n", e.what());
    return 1;
  }
  return 0;
}
