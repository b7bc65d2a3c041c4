// write_field_test_file OUT.h5 [--compression C] [--images N] [--chunk K] [--rows-per-call R]
//                       [--unlabelled] [--no-fields]
//
// Writes an h5feed file with the library's Writer holding every test field of
// field_test_columns.h (an array of every type, "blob", "caption"), for
// test_h5py_reads_fields.py to check what h5py sees. Images are 2 x 2 x 3, pixel byte j of
// image i = (i + j) mod 256; labels i mod 3 ("a", "b", "c"), or none with --unlabelled; fields
// appended R rows a call (default: one chunk's). Exit status: 0 written, 1 h5feed error
// (message on stderr), 2 bad usage.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "field_test_columns.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr, "write_field_test_file: %s\n", message);
  return 2;
}

int Run(int argc, char** argv) {
  if (argc < 2) return Usage("usage: write_field_test_file OUT.h5 [--compression C] ...");
  h5feed::WriterOptions options;
  options.image_shape = {2, 2, 3};
  options.chunk_images = 8;
  options.overwrite = true;
  options.fields = h5feed::testing::TestFieldSpecs();
  int64_t images = 30;
  int64_t rows_per_call = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--unlabelled") {
      options.labelled = false;
      continue;
    }
    if (flag == "--no-fields") {
      options.fields.clear();
      continue;
    }
    if (i + 1 >= argc) return Usage(("missing value after " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--compression") {
      options.compression = h5feed::Compression::Parse(value);
    } else if (flag == "--images") {
      images = std::stoll(value);
    } else if (flag == "--chunk") {
      options.chunk_images = std::stoll(value);
    } else if (flag == "--rows-per-call") {
      rows_per_call = std::stoll(value);
    } else {
      return Usage(("unknown option " + flag).c_str());
    }
  }
  h5feed::Writer writer = h5feed::Writer::Create(argv[1], options);
  const int64_t k = writer.chunk_images();
  const int64_t image_bytes = options.image_shape.bytes();
  h5feed::DatasetDescription description;
  for (int64_t first = 0; first < images; first += k) {
    const int64_t count = std::min(k, images - first);
    std::vector<uint8_t> pixels;
    for (int64_t i = first; i < first + count; ++i) {
      for (int64_t j = 0; j < image_bytes; ++j) pixels.push_back(static_cast<uint8_t>(i + j));
      if (options.labelled) description.labels.push_back(i % 3);
      description.sources.push_back("img" + std::to_string(i));
    }
    writer.Append(writer.Encode(pixels, count));
  }
  const int64_t step = rows_per_call > 0 ? rows_per_call : k;
  for (int64_t first = 0; first < images; first += step) {
    const int64_t count = std::min(step, images - first);
    writer.AppendFields(h5feed::testing::TestFieldColumns(options.fields, first, count));
  }
  if (options.labelled) description.classes = {"a", "b", "c"};
  description.source_kind = "npy";
  writer.Finish(description);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const h5feed::Error& error) {
    std::fprintf(stderr, "write_field_test_file: %s: %s\n",
                 std::string(ToString(error.code())).c_str(), error.what());
    return 1;
  }
}
