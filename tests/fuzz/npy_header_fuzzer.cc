// Fuzz target: the .npy header parser (converters/sources/npy_header.h) and what the NumPy
// source does with a parsed header: the element count and data size compared with the file,
// and integer elements (labels) read with their byte order.

#include <algorithm>
#include <cstdint>

#include "fuzz_support.h"
#include "sources/npy_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> file(data, size);
  h5feed::fuzzing::ExpectCleanErrorsOnly([&] {
    const h5feed::converters::NpyHeader header =
        h5feed::converters::ParseNpyHeader(file, "fuzzed.npy");
    if (header.data_offset < 0 || static_cast<uint64_t>(header.data_offset) > size) {
      h5feed::fuzzing::Finding("the data starts outside the file");
    }
    for (int64_t d : header.shape) {
      if (d < 0) h5feed::fuzzing::Finding("a negative dimension was accepted");
    }
    const int64_t data_bytes = header.data_bytes();
    if (data_bytes < 0) h5feed::fuzzing::Finding("the data size is negative");
    header.ShapeText();
    const int64_t available = static_cast<int64_t>(size) - header.data_offset;
    if (!header.dtype.is_integer() || header.dtype.item_bytes < 1 || data_bytes > available) {
      return;
    }
    const int64_t count = std::min<int64_t>(header.elements(), 4096);
    for (int64_t i = 0; i < count; ++i) {
      h5feed::converters::ReadNpyInteger(data + header.data_offset + i * header.dtype.item_bytes,
                                         header.dtype);
    }
  });
  return 0;
}
