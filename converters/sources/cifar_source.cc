#include "sources/cifar_source.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "sources/input_file.h"

namespace h5feed::converters {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSide = 32;
constexpr int64_t kPlane = kSide * kSide;  // 1024 bytes per colour plane
constexpr int64_t kPixelBytes = 3 * kPlane;

// What tells the two datasets apart, and where their labels are in a record.
struct Variant {
  std::string_view name;    // "CIFAR-10"
  std::string_view folder;  // the folder the archive extracts to
  std::vector<std::string> train_files;
  std::vector<std::string> test_files;
  int64_t label_bytes;  // bytes before the pixels in a record
};

const Variant& Cifar10() {
  static const Variant variant{"CIFAR-10",
                               "cifar-10-batches-bin",
                               {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                "data_batch_4.bin", "data_batch_5.bin"},
                               {"test_batch.bin"},
                               1};
  return variant;
}

const Variant& Cifar100() {
  static const Variant variant{"CIFAR-100", "cifar-100-binary", {"train.bin"}, {"test.bin"}, 2};
  return variant;
}

bool HoldsAnyOf(const fs::path& dir, const Variant& variant) {
  std::error_code ec;
  for (const auto* files : {&variant.train_files, &variant.test_files}) {
    for (const std::string& file : *files) {
      if (fs::is_regular_file(dir / file, ec)) return true;
    }
  }
  return false;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// The folder holding the binaries and which dataset they are. `dir` itself is tried first,
// then the folder the official archive extracts to.
std::pair<fs::path, const Variant*> Locate(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw MakeError(ErrorCode::kNotFound, "CIFAR folder {} does not exist or is not a folder", dir);
  }
  for (const Variant* variant : {&Cifar10(), &Cifar100()}) {
    if (HoldsAnyOf(dir, *variant)) return {fs::path(dir), variant};
  }
  for (const Variant* variant : {&Cifar10(), &Cifar100()}) {
    fs::path nested = fs::path(dir) / variant->folder;
    if (HoldsAnyOf(nested, *variant)) return {nested, variant};
  }
  throw MakeError(
      ErrorCode::kNotFound,
      "no CIFAR binaries in {}: expected {}, {} (CIFAR-10) or train.bin, test.bin (CIFAR-100), in "
      "that folder or in its cifar-10-batches-bin/ or cifar-100-binary/ subfolder (the binary "
      "version, not the Python pickles)",
      dir, JoinNames(Cifar10().train_files), JoinNames(Cifar10().test_files));
}

// Class names, one per line with blank lines skipped; "0".."count-1" when the file is absent.
std::vector<std::string> ReadClassNames(const fs::path& file, int64_t count) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    for (int64_t i = 0; i < count; ++i) names.push_back(std::to_string(i));
    return names;
  }
  std::ifstream in(file);
  if (!in) throw MakeError(ErrorCode::kIo, "cannot read class names from {}", file.string());
  std::string line;
  while (std::getline(in, line)) {
    // Trailing spaces and a CR (a file edited on Windows) are not part of a name.
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    if (!line.empty()) names.push_back(line);
  }
  if (in.bad()) throw MakeError(ErrorCode::kIo, "cannot read class names from {}", file.string());
  if (static_cast<int64_t>(names.size()) != count) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} holds {} class names; {} expected (one per line). Fix or remove the file to use the "
        "class numbers as names",
        file.string(), names.size(), count);
  }
  return names;
}

// Thread-safety: immutable after construction; Read() only reads the files.
class CifarSource final : public SampleSource {
 public:
  CifarSource(std::vector<InputFile> files, std::vector<std::string> names, int64_t label_bytes,
              int64_t label_offset, std::vector<std::string> classes)
      : files_(std::move(files)),
        names_(std::move(names)),
        label_bytes_(label_bytes),
        label_offset_(label_offset),
        classes_(std::move(classes)) {
    int64_t total = 0;
    for (const InputFile& file : files_) {
      total += static_cast<int64_t>(file.size()) / record_bytes();
      ends_.push_back(total);
    }
  }

  std::string_view kind() const override { return "cifar"; }
  int64_t count() const override { return ends_.empty() ? 0 : ends_.back(); }
  ImageShape shape() const override { return {kSide, kSide, 3}; }
  std::vector<std::string> classes() const override { return classes_; }

  std::string name(int64_t i) const override {
    auto [file, record] = Position(i);
    return names_[file] + "#" + std::to_string(record);
  }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    if (i < 0 || i >= count()) {
      throw MakeError(ErrorCode::kInvalidArgument, "CIFAR sample {} is out of range [0, {})", i,
                      count());
    }
    auto [file, record] = Position(i);
    std::vector<uint8_t> stored(static_cast<size_t>(record_bytes()));
    files_[file].ReadAt(static_cast<uint64_t>(record * record_bytes()), stored);
    const uint8_t* bytes = stored.data();
    SampleInfo info;
    info.source = names_[file] + "#" + std::to_string(record);
    info.label = bytes[label_offset_];
    if (info.label >= static_cast<int64_t>(classes_.size())) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{} has label {}; {} classes expected (a damaged record)", info.source,
                      info.label, classes_.size());
    }
    // Planar CHW to interleaved HWC.
    const uint8_t* red = bytes + label_bytes_;
    const uint8_t* green = red + kPlane;
    const uint8_t* blue = green + kPlane;
    uint8_t* out = dest.MemoryFor(shape()).data();
    for (int64_t p = 0; p < kPlane; ++p) {
      out[3 * p] = red[p];
      out[3 * p + 1] = green[p];
      out[3 * p + 2] = blue[p];
    }
    return info;
  }

 private:
  int64_t record_bytes() const { return label_bytes_ + kPixelBytes; }

  // The file holding sample i and the record's index in it.
  std::pair<size_t, int64_t> Position(int64_t i) const {
    size_t file =
        static_cast<size_t>(std::upper_bound(ends_.begin(), ends_.end(), i) - ends_.begin());
    return {file, i - (file == 0 ? 0 : ends_[file - 1])};
  }

  std::vector<InputFile> files_;
  std::vector<std::string> names_;  // file names, for SampleInfo::source
  std::vector<int64_t> ends_;       // ends_[f] = samples in files 0..f
  int64_t label_bytes_;
  int64_t label_offset_;
  std::vector<std::string> classes_;
};

}  // namespace

std::unique_ptr<SampleSource> OpenCifar(const std::string& dir, const CifarOptions& options) {
  auto [folder, variant] = Locate(dir);
  bool cifar10 = variant == &Cifar10();
  bool coarse = options.labels == CifarOptions::Labels::kCoarse;
  if (cifar10 && coarse) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "CIFAR-10 in {} has no coarse labels; coarse labels are CIFAR-100's 20 superclasses",
        folder.string());
  }
  bool train = options.split == CifarOptions::Split::kTrain;
  const std::vector<std::string>& wanted = train ? variant->train_files : variant->test_files;

  std::vector<std::string> missing;
  std::error_code ec;
  for (const std::string& name : wanted) {
    if (!fs::is_regular_file(folder / name, ec)) missing.push_back(name);
  }
  if (!missing.empty()) {
    throw MakeError(ErrorCode::kNotFound,
                    "{} in {} lacks {}; the {} split needs {} (re-extract the archive)",
                    variant->name, folder.string(), JoinNames(missing), (train ? "train" : "test"),
                    JoinNames(wanted));
  }

  const int64_t record_bytes = variant->label_bytes + kPixelBytes;
  std::vector<InputFile> files;
  for (const std::string& name : wanted) {
    InputFile file((folder / name).string());
    // Zero records is a whole number of them, but no batch of either dataset is empty: such a
    // file is a failed download, which would silently leave a fifth of CIFAR-10 out.
    if (file.size() == 0) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{} is empty (0 bytes), not a {} binary of {}-byte records. Download and "
                      "extract the archive again",
                      file.path(), variant->name, record_bytes);
    }
    if (static_cast<int64_t>(file.size()) % record_bytes != 0) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} is truncated or not a {} binary: its {} bytes are not a whole number of {}-byte "
          "records. Download and extract the archive again",
          file.path(), variant->name, file.size(), record_bytes);
    }
    files.push_back(std::move(file));
  }

  std::vector<std::string> classes;
  int64_t label_offset = 0;
  if (cifar10) {
    classes = ReadClassNames(folder / "batches.meta.txt", 10);
  } else if (coarse) {
    classes = ReadClassNames(folder / "coarse_label_names.txt", 20);
  } else {
    classes = ReadClassNames(folder / "fine_label_names.txt", 100);
    label_offset = 1;  // CIFAR-100 records start with the coarse label, then the fine one
  }
  return std::make_unique<CifarSource>(std::move(files), wanted, variant->label_bytes, label_offset,
                                       std::move(classes));
}

}  // namespace h5feed::converters
