// The sweep's temporary rechunked files (rechunked_files.h).

#include "rechunked_files.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "byte_size.h"
#include "conversion.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::bench {
namespace {

// The variant's name as a file name: "chunk 64, zstd:3" is chunk64-zstd:3.
std::string FileNameOf(const FileVariant& variant) {
  std::string name;
  for (const char c : variant.Name()) {
    if (c == ',') {
      name += '-';
    } else if (c != ' ') {
      name += c;
    }
  }
  return name;
}

}  // namespace

uint64_t FreeDiskBytes(const std::string& path) {
  struct statvfs info {};
  if (statvfs(path.c_str(), &info) != 0) {
    throw MakeError(ErrorCode::kIo, "cannot read the free space of {}: {}", path,
                    std::strerror(errno));
  }
  return static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
}

void CheckDiskBudget(const std::string& folder, uint64_t needed, uint64_t budget) {
  const uint64_t free = FreeDiskBytes(folder);
  if (needed > free) {
    throw MakeError(
        ErrorCode::kNoSpace,
        "the sweep needs up to {} for one rechunked copy of the file in {}, but its filesystem has "
        "{} free; free some space, use --work-dir on a larger disk, or sweep fewer or compressed "
        "variants",
        ByteSize(needed), folder, ByteSize(free));
  }
  if (budget > 0 && needed > budget) {
    throw MakeError(
        ErrorCode::kNoSpace,
        "the sweep needs up to {} for one rechunked copy of the file, above --disk-budget-mb ({}); "
        "raise the budget or drop the largest variants (uncompressed, big chunks)",
        ByteSize(needed), ByteSize(budget));
  }
}

RechunkedFiles::RechunkedFiles(
    std::function<std::unique_ptr<converters::SampleSource>()> open_images,
    const std::string& work_folder)
    : open_images_(std::move(open_images)) {
  std::string pattern = work_folder + "/.h5feed-sweep-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw MakeError(ErrorCode::kIo, "cannot create a temporary folder in {}: {}", work_folder,
                    std::strerror(errno));
  }
  folder_ = pattern;
}

RechunkedFiles::~RechunkedFiles() {
  std::error_code ignored;  // nothing useful to do about a failure while unwinding
  std::filesystem::remove_all(folder_, ignored);
}

std::string RechunkedFiles::Make(const FileVariant& variant, int threads,
                                 const std::atomic<bool>* cancel,
                                 const std::function<void(int64_t, int64_t)>& progress) {
  if (!current_.empty()) {
    std::error_code ignored;
    std::filesystem::remove(current_, ignored);
    current_.clear();
  }
  const std::string path = folder_ + "/" + FileNameOf(variant) + ".h5";
  converters::ConvertOptions options;
  options.chunk_images = variant.chunk_samples;
  options.chunk_bytes = variant.chunk_bytes;
  options.encoding = variant.encoding;
  options.compression = variant.compression;
  options.shuffle = false;  // keep the source's order: the samplers do the shuffling
  options.threads = threads;
  options.overwrite = true;
  options.strict = true;
  options.cancel = cancel;
  if (progress) {
    options.on_progress = [&progress](const converters::ConvertProgress& p) {
      progress(p.done, p.total);
    };
  }
  const std::unique_ptr<converters::SampleSource> source = open_images_();
  converters::Convert(*source, path, options);
  current_ = path;
  return path;
}

}  // namespace h5feed::bench
