// fields_file OUT.h5 --images RAW --labels RAW --count N --shape HxWxC [--compression C]
//             [--field NAME] [--field-bytes B]
//
// Writes an h5feed file with the library's Writer from raw arrays (bench/fields_bench.py dumps
// loader_bench.py's generated images and labels with numpy's tofile): N images of HxWxC uint8
// in chunks of the default size, their int64 labels, and one array field NAME (default
// "attrs") of B uint8 elements a row (default 40, CelebA's attributes), element e of row n
// being (31 n + 7 e) mod 2. What `h5feed bench --fields NAME` reads beside the images.
// Exit status: 0 written, 1 h5feed error or unreadable input (message on stderr), 2 bad usage.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/field.h"
#include "h5feed/writer.h"

namespace {

int Usage(const std::string& message) {
  std::fprintf(stderr, "fields_file: %s\n", message.c_str());
  return 2;
}

// Reads `bytes` bytes of `path` from `offset`; false when the file is shorter.
bool ReadAt(const std::string& path, uint64_t offset, std::vector<uint8_t>& out, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  out.resize(bytes);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
  return static_cast<size_t>(in.gcount()) == bytes;
}

int Run(int argc, char** argv) {
  if (argc < 2) return Usage("usage: fields_file OUT.h5 --images RAW --labels RAW --count N ...");
  std::string images_path, labels_path, field = "attrs";
  int64_t count = 0, field_bytes = 40;
  h5feed::WriterOptions options;
  options.overwrite = true;
  for (int i = 2; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage("missing value after " + flag);
    const std::string value = argv[i + 1];
    if (flag == "--images") {
      images_path = value;
    } else if (flag == "--labels") {
      labels_path = value;
    } else if (flag == "--count") {
      count = std::stoll(value);
    } else if (flag == "--shape") {
      if (std::sscanf(value.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64,
                      &options.image_shape.height, &options.image_shape.width,
                      &options.image_shape.channels) != 3) {
        return Usage("--shape is HxWxC");
      }
    } else if (flag == "--compression") {
      options.compression = h5feed::Compression::Parse(value);
    } else if (flag == "--field") {
      field = value;
    } else if (flag == "--field-bytes") {
      field_bytes = std::stoll(value);
    } else {
      return Usage("unknown option " + flag);
    }
  }
  if (images_path.empty() || labels_path.empty() || count < 1) {
    return Usage("--images, --labels and --count are needed");
  }
  options.fields = {
      {field, h5feed::FieldKind::kArray, h5feed::FieldType::kUint8, {field_bytes}, {}}};
  h5feed::Writer writer = h5feed::Writer::Create(argv[1], options);
  const int64_t k = writer.chunk_images();
  const auto image_bytes = static_cast<size_t>(options.image_shape.bytes());
  std::vector<uint8_t> pixels, label_bytes;
  if (!ReadAt(labels_path, 0, label_bytes, static_cast<size_t>(count) * sizeof(int64_t))) {
    throw h5feed::Error(h5feed::ErrorCode::kIo, labels_path + " holds fewer than N labels");
  }
  h5feed::DatasetDescription description;
  description.labels.resize(static_cast<size_t>(count));
  std::copy_n(reinterpret_cast<const int64_t*>(label_bytes.data()), count,
              description.labels.begin());
  for (int64_t first = 0; first < count; first += k) {
    const int64_t images = std::min(k, count - first);
    if (!ReadAt(images_path, static_cast<uint64_t>(first) * image_bytes, pixels,
                static_cast<size_t>(images) * image_bytes)) {
      throw h5feed::Error(h5feed::ErrorCode::kIo, images_path + " holds fewer than N images");
    }
    writer.Append(writer.Encode(pixels, images));
    std::vector<h5feed::FieldColumn> columns(1);
    for (int64_t n = first; n < first + images; ++n) {
      std::vector<uint8_t> row(static_cast<size_t>(field_bytes));
      for (int64_t e = 0; e < field_bytes; ++e) row[static_cast<size_t>(e)] = (31 * n + 7 * e) % 2;
      columns[0].Append(row);
    }
    writer.AppendFields(columns);
    for (int64_t n = first; n < first + images; ++n) {
      description.sources.push_back("row" + std::to_string(n));
    }
  }
  int64_t classes = 0;
  for (int64_t label : description.labels) classes = std::max(classes, label + 1);
  for (int64_t c = 0; c < classes; ++c) description.classes.push_back("class" + std::to_string(c));
  description.source_kind = "npy";
  writer.Finish(description);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fields_file: %s\n", error.what());
    return 1;
  }
}
