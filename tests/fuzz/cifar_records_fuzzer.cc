// Fuzz target: reading CIFAR binaries (converters/sources/cifar_source.h): the record count
// from the file size, the label byte(s) of every record against the class count, and the
// class-name file.
//   byte 0: bit 0 CIFAR-100 (else CIFAR-10), bit 1 coarse labels; bytes 1-2: length of the
//   class-name file's text, which follows; the rest is the test split's .bin file.
// The files go to a scratch folder of this process (a source reads files, not memory).

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "converters/sample_buffer.h"
#include "fuzz_support.h"
#include "sources/cifar_source.h"

namespace {

namespace fs = std::filesystem;

// One folder per process, reused by every input and removed at exit.
struct ScratchFolder {
  ScratchFolder()
      : path(fs::temp_directory_path() / ("h5feed-cifar-fuzz-" + std::to_string(::getpid()))) {
    fs::create_directories(path);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
};

const fs::path& Scratch() {
  static const ScratchFolder folder;
  return folder.path;
}

void Write(const fs::path& path, std::span<const uint8_t> bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  h5feed::fuzzing::ByteReader in(data, size);
  const uint8_t choice = in.Byte();
  const bool cifar100 = choice & 1;
  h5feed::converters::CifarOptions options;
  options.split = h5feed::converters::CifarOptions::Split::kTest;
  options.labels = (choice & 2) ? h5feed::converters::CifarOptions::Labels::kCoarse
                                : h5feed::converters::CifarOptions::Labels::kFine;
  const size_t names_bytes = std::min<size_t>(in.U16(), in.Rest().size());
  const std::span<const uint8_t> names = in.Rest().first(names_bytes);
  const std::span<const uint8_t> records = in.Rest().subspan(names_bytes);

  const fs::path& folder = Scratch();
  for (const auto& entry : fs::directory_iterator(folder)) fs::remove(entry.path());
  Write(folder / (cifar100 ? "test.bin" : "test_batch.bin"), records);
  const char* names_file = !cifar100      ? "batches.meta.txt"
                           : (choice & 2) ? "coarse_label_names.txt"
                                          : "fine_label_names.txt";
  if (!names.empty()) Write(folder / names_file, names);

  h5feed::fuzzing::ExpectCleanErrorsOnly([&] {
    std::unique_ptr<h5feed::converters::SampleSource> source =
        h5feed::converters::OpenCifar(folder.string(), options);
    const int64_t expected_records =
        static_cast<int64_t>(records.size()) / (cifar100 ? 3074 : 3073);
    if (source->count() != expected_records) h5feed::fuzzing::Finding("wrong record count");
    if (source->shape().bytes() != 3072) h5feed::fuzzing::Finding("wrong sample shape");
    const int64_t classes = static_cast<int64_t>(source->classes().size());
    h5feed::testing::SampleBuffer pixels;
    for (int64_t i = 0; i < source->count(); ++i) {
      h5feed::fuzzing::ExpectCleanErrorsOnly([&] {  // a damaged record is skipped, not fatal
        const h5feed::converters::SampleInfo info = source->Read(i, pixels);
        if (info.label < 0 || info.label >= classes) {
          h5feed::fuzzing::Finding("a label outside the classes was accepted");
        }
      });
    }
  });
  return 0;
}
