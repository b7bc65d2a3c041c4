#pragma once
// A file with fields for the Loader's field tests, CPU and GPU alike: images FileImage(r) of
// one shape (test_files.h), labels r % 7 unless unlabelled, and every test field
// (tests/lib/format/field_test_columns.h, each row's value a function of its row) appended
// with Writer::AppendFields a chunk of rows at a time, as a converter appends them; and the
// check that a delivered batch's fields are the file's rows at the batch's indices.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/image_shape.h"
#include "h5feed/loader.h"
#include "h5feed/writer.h"
#include "lib/format/field_test_columns.h"
#include "lib/loader/test_files.h"

namespace h5feed::testing {

// `samples` rows of `shape` in chunks of `chunk` images (zstd unless `compression` says),
// every test field beside them (or `fields`, whose rows are TestFieldRow's too).
inline void WriteFieldTestFile(const std::string& path, int64_t samples, const ImageShape& shape,
                               int64_t chunk, bool labelled,
                               const Compression& compression = Compression::Parse("zstd"),
                               const std::vector<FieldSpec>& fields = TestFieldSpecs()) {
  WriterOptions options;
  options.image_shape = shape;
  options.chunk_images = chunk;
  options.compression = compression;
  options.fields = fields;
  options.labelled = labelled;
  Writer writer = Writer::Create(path, options);
  DatasetDescription description;
  for (int64_t first = 0; first < samples; first += chunk) {
    const int64_t images = std::min(chunk, samples - first);
    std::vector<uint8_t> pixels;
    for (int64_t r = first; r < first + images; ++r) {
      const std::vector<uint8_t> image = FileImage(r, shape);
      pixels.insert(pixels.end(), image.begin(), image.end());
      if (labelled) description.labels.push_back(r % 7);
      description.sources.push_back("img" + std::to_string(r) + ".png");
    }
    writer.Append(writer.Encode(pixels, images));
    writer.AppendFields(TestFieldColumns(options.fields, first, images));
  }
  if (labelled) {
    for (int c = 0; c < 7; ++c) description.classes.push_back("class" + std::to_string(c));
  }
  description.source_kind = "npy";
  writer.Finish(description);
}

inline std::vector<std::string> AllTestFieldNames() {
  std::vector<std::string> names;
  for (const FieldSpec& spec : TestFieldSpecs()) names.push_back(spec.name);
  return names;
}

// A field tensor's bytes on the host: read in place (host memory), or copied from the device
// (the GPU tests pass a copy that waits for the batch on the trainer's stream).
using TensorBytes = std::function<std::vector<uint8_t>(const FieldTensor&)>;

inline std::vector<uint8_t> HostTensorBytes(const FieldTensor& tensor) {
  const auto* data = static_cast<const uint8_t*>(tensor.data);
  return {data, data + tensor.elements() * static_cast<int64_t>(ElementBytes(tensor.type))};
}

// Checks every field of every row of `batch` against the file's value at the row's index (by
// position, by name, as a tensor on `cuda_device` (-1: the host; read with `bytes_of`) and
// row by row); returns the rows delivered.
inline std::vector<int64_t> CheckBatchFields(const Batch& batch,
                                             const std::vector<std::string>& asked,
                                             int cuda_device = -1,
                                             const TensorBytes& bytes_of = HostTensorBytes) {
  const std::vector<FieldSpec> specs = TestFieldSpecs();
  REQUIRE(batch.fields() == static_cast<int>(asked.size()));
  for (int k = 0; k < batch.fields(); ++k) {
    const FieldSpec& spec = batch.field_spec(k);
    CAPTURE(spec.name);
    REQUIRE(spec.name == asked[static_cast<size_t>(k)]);
    CHECK(batch.field_index(spec.name) == k);
    CHECK(*std::find_if(specs.begin(), specs.end(),
                        [&](const FieldSpec& s) { return s.name == spec.name; }) == spec);
    const bool array = spec.kind == FieldKind::kArray;
    FieldTensor tensor;
    std::vector<uint8_t> tensor_bytes;
    if (array) {
      tensor = batch.field_tensor(spec.name);
      tensor_bytes = bytes_of(tensor);
      std::vector<int64_t> shape = {batch.size()};
      shape.insert(shape.end(), spec.shape.begin(), spec.shape.end());
      CHECK(tensor.shape == shape);
      CHECK(tensor.type == spec.type);
      CHECK(tensor.cuda_device == cuda_device);
      CHECK(tensor.elements() * static_cast<int64_t>(ElementBytes(spec.type)) ==
            batch.size() * spec.row_bytes());
    }
    for (int64_t i = 0; i < batch.size(); ++i) {
      const int64_t row = batch.indices()[static_cast<size_t>(i)];
      CAPTURE(row);
      const std::vector<uint8_t> expected = TestFieldRow(spec, row);
      const std::span<const uint8_t> got = batch.field_bytes(k, i);
      CHECK(std::vector<uint8_t>(got.begin(), got.end()) == expected);
      CHECK(batch.field_text(k, i) == std::string(expected.begin(), expected.end()));
      if (array) {
        const uint8_t* rows = tensor_bytes.data();
        const auto bytes = static_cast<size_t>(spec.row_bytes());
        CHECK(std::equal(expected.begin(), expected.end(), rows + static_cast<size_t>(i) * bytes));
      }
    }
  }
  return std::vector<int64_t>(batch.indices().begin(), batch.indices().end());
}

}  // namespace h5feed::testing
