#include "sources/image_file_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "sources/read_file.h"

namespace h5feed::converters {
namespace {

// A header fits in the first 256 KiB unless a huge metadata block precedes it. A file to be
// decoded is read whole at once when it has up to 4 MiB (nearly every photo): a second read
// would cost more than the memory it saves.
constexpr int64_t kHeaderBytes = 256 << 10;
constexpr int64_t kReadWholeBytes = 4 << 20;
// An idle Scratch keeps its buffers and lease up to this size: enough for the photos of a
// typical dataset (their files, and their pixels at a reduced DCT scale), so that they reuse
// memory, while a huge image's buffers go back as soon as it is done.
constexpr int64_t kKeptScratchBytes = 32 << 20;
// A PNG decoded whole would take more than this: it is decoded row by row instead. Below it,
// decoding whole and resizing with SIMD is the faster way.
constexpr int64_t kStreamAboveBytes = 16 << 20;

std::string SizeText(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

int64_t FileBytes(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) return info.st_size;
  const int error = errno;
  // A symbolic link to a file that moved (a dataset assembled with links, then reorganised) is
  // the usual cause; "No such file" alone, for a name that ls lists, would not say so.
  std::error_code link_ec;
  const std::filesystem::path target = std::filesystem::read_symlink(path, link_ec);
  if (!link_ec) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} is a symbolic link to {}, which cannot be read ({}); fix or remove the "
                    "link",
                    path, target.string(), std::strerror(error));
  }
  throw MakeError(ErrorCode::kCorrupt, "cannot stat {}: {}", path, std::strerror(error));
}

}  // namespace

void CheckImageLimits(int64_t max_pixels, int64_t max_side, const OptionNames& names) {
  if (max_pixels < 0) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} must be 0 (no limit) or positive, got {}",
                    NameOption(names, "ConvertOptions", "max_pixels"), max_pixels);
  }
  if (max_side < 0) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} must be 0 (no cap) or positive, got {}",
                    NameOption(names, "ConvertOptions", "max_side"), max_side);
  }
}

struct ImageFileReader::Scratch {
  std::vector<uint8_t> encoded;
  std::vector<uint8_t> decoded;
  MemoryBudget::Lease lease;  // covers the buffers' capacities and the image being read

  int64_t kept() const { return static_cast<int64_t>(encoded.capacity() + decoded.capacity()); }
  void Clear() {
    std::vector<uint8_t>().swap(encoded);
    std::vector<uint8_t>().swap(decoded);
    lease.Release();
  }
};

// A Scratch borrowed from the reader's pool for one call, returned when it ends.
class ImageFileReader::Borrowed {
 public:
  explicit Borrowed(const ImageFileReader& reader) : reader_(reader) {
    std::lock_guard lock(reader.mutex_);
    if (!reader.idle_.empty()) {
      scratch_ = std::move(reader.idle_.back());
      reader.idle_.pop_back();
    }
    if (!scratch_) scratch_ = std::make_unique<Scratch>();
  }
  ~Borrowed() { reader_.Release(std::move(scratch_)); }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  Scratch& operator*() const { return *scratch_; }

 private:
  const ImageFileReader& reader_;
  std::unique_ptr<Scratch> scratch_;
};

struct ImageFileReader::Header {
  int64_t file_bytes = 0;
  image::DecodePlan plan;        // at full size
  const Fetch* fetch = nullptr;  // where the bytes come from; null: the file `path`
};

ImageFileReader::ImageFileReader(MemoryBudget& budget, int64_t max_pixels, const OptionNames& names)
    : budget_(budget),
      max_pixels_(max_pixels),
      max_pixels_option_(NameOption(names, "ConvertOptions", "max_pixels")),
      memory_option_(NameOption(names, "ConvertOptions", "memory")) {}

ImageFileReader::~ImageFileReader() = default;

void ImageFileReader::Release(std::unique_ptr<Scratch> scratch) const {
  // The check and the push are one step under the pool's lock, and a waiter registers before
  // it empties the pool (Acquire's before_waiting): a Scratch is either emptied by the waiter
  // or sees it waiting, never kept idle while a waiter needs its lease.
  std::lock_guard lock(mutex_);
  if (scratch->lease.bytes() > kKeptScratchBytes || budget_.has_waiters()) scratch->Clear();
  idle_.push_back(std::move(scratch));
}

void ImageFileReader::ReleaseIdle() const {
  std::lock_guard lock(mutex_);
  for (const std::unique_ptr<Scratch>& scratch : idle_) scratch->Clear();
}

void ImageFileReader::Cover(Scratch& scratch, const std::string& path, int64_t file,
                            int64_t decoded, int64_t transient, const std::string& why) const {
  const int64_t needed = file + decoded + transient;
  if (!budget_.fits(needed)) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "refused image '{}': decoding it needs {} (its {} file, {}), more than the {} that "
        "{} {} leaves for decoding; raise {} to convert it",
        path, ByteSize(needed), ByteSize(file), why, ByteSize(budget_.lendable()), memory_option_,
        ByteSize(budget_.limit()), memory_option_);
  }
  // Buffers kept from earlier images count until they are given back.
  const int64_t with_kept =
      std::max<int64_t>(static_cast<int64_t>(scratch.encoded.capacity()), file) +
      std::max<int64_t>(static_cast<int64_t>(scratch.decoded.capacity()), decoded) + transient;
  if (!budget_.TryGrow(scratch.lease, with_kept)) {
    // Waiting while holding a lease could wait for that very lease: give everything back first.
    scratch.Clear();
    scratch.lease = budget_.Acquire(needed, [this] { ReleaseIdle(); });
  }
  // Exactly the leased sizes: growing a vector by resize() may double its capacity.
  scratch.encoded.reserve(static_cast<size_t>(file));
  scratch.decoded.reserve(static_cast<size_t>(decoded));
}

void ImageFileReader::ReadWholeFile(const std::string& path, Scratch& scratch,
                                    const Header& header) const {
  const int64_t file_bytes = header.file_bytes;
  if (static_cast<int64_t>(scratch.encoded.size()) == file_bytes) return;
  if (header.fetch != nullptr) {
    const bool fetched = (*header.fetch)([&](int64_t bytes) -> uint8_t* {
      if (bytes != file_bytes) return nullptr;
      scratch.encoded.resize(static_cast<size_t>(bytes));
      return scratch.encoded.data();
    });
    if (!fetched || static_cast<int64_t>(scratch.encoded.size()) != file_bytes) {
      throw MakeError(ErrorCode::kCorrupt,
                      "{} changed while converting: it no longer holds {} bytes", path, file_bytes);
    }
    return;
  }
  // At most what was leased: a file that grew since is read as far as its old size (and fails
  // to decode, as a file changed while converting should).
  ReadFileInto(path, scratch.encoded, file_bytes);
}

void ImageFileReader::CheckPixels(const std::string& path, const image::DecodePlan& plan) const {
  const int64_t pixels = int64_t{plan.full_height} * plan.full_width;
  if (max_pixels_ > 0 && pixels > max_pixels_) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "refused image '{}': {} = {} pixels, more than {} {} allows (a decompression bomb, or an "
        "image too large to train on); pass a larger {}, or 0 for no limit, to convert it",
        path, SizeText(plan.full_width, plan.full_height), pixels, max_pixels_option_, max_pixels_,
        max_pixels_option_);
  }
}

ImageFileReader::Header ImageFileReader::FetchHeader(const std::string& name, const Fetch& fetch,
                                                     Scratch& scratch) const {
  Header header;
  header.fetch = &fetch;
  // Without waiting first: memory this scratch holds, or more that is free now. Otherwise the
  // fetch gives up, and the memory is waited for here, with no lock held.
  const Place place = [&](int64_t bytes) -> uint8_t* {
    header.file_bytes = bytes;
    const int64_t with_kept =
        std::max<int64_t>(static_cast<int64_t>(scratch.encoded.capacity()), bytes) +
        static_cast<int64_t>(scratch.decoded.capacity());
    if (!budget_.fits(bytes) || !budget_.TryGrow(scratch.lease, with_kept)) return nullptr;
    scratch.encoded.reserve(static_cast<size_t>(bytes));
    scratch.encoded.resize(static_cast<size_t>(bytes));
    return scratch.encoded.data();
  };
  scratch.encoded.clear();
  while (!fetch(place)) {
    if (header.file_bytes <= 0) {
      throw MakeError(ErrorCode::kCorrupt, "{} holds no bytes: not an image", name);
    }
    Cover(scratch, name, header.file_bytes, 0, 0, "read from its dataset");
  }
  if (header.file_bytes <= 0 || scratch.encoded.empty()) {
    throw MakeError(ErrorCode::kCorrupt, "{} holds no bytes: not an image", name);
  }
  header.plan = image::PlanDecode(scratch.encoded, name);
  CheckPixels(name, header.plan);
  return header;
}

ImageFileReader::Header ImageFileReader::ReadHeader(const std::string& path, Scratch& scratch,
                                                    bool to_decode) const {
  Header header;
  header.file_bytes = FileBytes(path);
  const int64_t prefix =
      std::min(header.file_bytes,
               to_decode && header.file_bytes <= kReadWholeBytes ? kReadWholeBytes : kHeaderBytes);
  Cover(scratch, path, prefix, 0, 0, "read for its header");
  ReadFileInto(path, scratch.encoded, prefix);
  try {
    header.plan = image::PlanDecode(scratch.encoded, path);
  } catch (const Error&) {
    if (prefix == header.file_bytes) throw;
    Cover(scratch, path, header.file_bytes, 0, 0, "read whole for its header");
    ReadWholeFile(path, scratch, header);
    header.plan = image::PlanDecode(scratch.encoded, path);
  }
  CheckPixels(path, header.plan);
  return header;
}

image::Size ImageFileReader::ReadSize(const std::string& path) const {
  Borrowed scratch(*this);
  const Header header = ReadHeader(path, *scratch, /*to_decode=*/false);
  return {header.plan.full_height, header.plan.full_width};
}

void ImageFileReader::CheckDecodes(const std::string& path) const {
  Borrowed borrowed(*this);
  Scratch& scratch = *borrowed;
  Header header = ReadHeader(path, scratch, /*to_decode=*/true);
  // A JPEG at its smallest DCT scale: the whole stream is still read and checked.
  image::DecodePlan plan = header.plan;
  if (plan.format == image::Format::kJpeg) plan = image::PlanDecode(scratch.encoded, path, 1, 1);
  if (plan.rows_in_order) {
    Cover(scratch, path, header.file_bytes, 0, plan.scratch_bytes, "decoded row by row");
    ReadWholeFile(path, scratch, header);
    image::DecodeRows(scratch.encoded, plan, path, [](std::span<const uint8_t>) {});
    return;
  }
  Cover(scratch, path, header.file_bytes, plan.bytes(), plan.scratch_bytes,
        SizeText(plan.width, plan.height) + " pixels decoded whole");
  ReadWholeFile(path, scratch, header);
  scratch.decoded.resize(static_cast<size_t>(plan.bytes()));
  image::Decode(scratch.encoded, plan, path, scratch.decoded);
}

void ImageFileReader::Read(const std::string& path, image::Size target,
                           std::optional<image::ResizeMode> mode, std::span<uint8_t> dest) const {
  Borrowed borrowed(*this);
  Scratch& scratch = *borrowed;
  const Header header = ReadHeader(path, scratch, /*to_decode=*/true);
  const image::DecodePlan& full = header.plan;
  if (!mode) {
    if (full.height != target.height || full.width != target.width) {
      // It was left out of the size check because it does not decode: say why. If it now
      // decodes, it changed while converting. (This call's lease goes back first: the check
      // takes its own.)
      scratch.Clear();
      CheckDecodes(path);
      throw MakeError(ErrorCode::kCorrupt,
                      "{} changed size while converting: it is now {}, the dataset's images are {}",
                      path, SizeText(full.width, full.height),
                      SizeText(target.width, target.height));
    }
    Cover(scratch, path, header.file_bytes, 0, full.scratch_bytes, "decoded into the chunk");
    ReadWholeFile(path, scratch, header);
    image::Decode(scratch.encoded, full, path, dest);
    return;
  }
  DecodeResized(path, scratch, header, target, *mode, dest);
}

image::Size ImageFileReader::ReadSize(const std::string& name, const Fetch& fetch) const {
  Borrowed scratch(*this);
  const Header header = FetchHeader(name, fetch, *scratch);
  return {header.plan.full_height, header.plan.full_width};
}

void ImageFileReader::Read(const std::string& name, const Fetch& fetch, image::Size target,
                           image::ResizeMode mode, std::span<uint8_t> dest) const {
  Borrowed borrowed(*this);
  Scratch& scratch = *borrowed;
  DecodeResized(name, scratch, FetchHeader(name, fetch, scratch), target, mode, dest);
}

void ImageFileReader::ReadAtOwnSize(const std::string& path, int max_side,
                                    const Destination& dest) const {
  Borrowed borrowed(*this);
  Scratch& scratch = *borrowed;
  StoreAtOwnSize(path, scratch, ReadHeader(path, scratch, /*to_decode=*/true), max_side, dest);
}

void ImageFileReader::ReadAtOwnSize(const std::string& name, const Fetch& fetch, int max_side,
                                    const Destination& dest) const {
  Borrowed borrowed(*this);
  Scratch& scratch = *borrowed;
  StoreAtOwnSize(name, scratch, FetchHeader(name, fetch, scratch), max_side, dest);
}

void ImageFileReader::StoreAtOwnSize(const std::string& path, Scratch& scratch,
                                     const Header& header, int max_side,
                                     const Destination& dest) const {
  const image::DecodePlan& full = header.plan;
  const image::Size stored = image::CappedSize({full.full_height, full.full_width}, max_side);
  const std::span<uint8_t> pixels = dest(stored);
  if (stored.height == full.height && stored.width == full.width) {
    Cover(scratch, path, header.file_bytes, 0, full.scratch_bytes, "decoded as stored");
    ReadWholeFile(path, scratch, header);
    image::Decode(scratch.encoded, full, path, pixels);
    return;
  }
  // Stretch to a size of the same aspect (to rounding): each axis shrunk by area averaging.
  DecodeResized(path, scratch, header, stored, image::ResizeMode::kStretch, pixels);
}

void ImageFileReader::DecodeResized(const std::string& path, Scratch& scratch, const Header& header,
                                    image::Size target, image::ResizeMode mode,
                                    std::span<uint8_t> dest) const {
  const image::DecodePlan& full = header.plan;
  const image::Size scaled =
      image::ScaledSourceSize({full.full_height, full.full_width}, target, mode);
  const image::DecodePlan plan =
      image::PlanDecode(scratch.encoded, path, scaled.height, scaled.width);
  const image::Size decoded{plan.height, plan.width};
  const int64_t whole =
      plan.bytes() + plan.scratch_bytes + image::ResizeScratchBytes(decoded, target, mode);
  if (plan.rows_in_order &&
      (plan.bytes() > kStreamAboveBytes || !budget_.fits(header.file_bytes + whole))) {
    Cover(scratch, path, header.file_bytes, 0,
          plan.scratch_bytes + image::RowResizer::ScratchBytes(decoded, target, mode),
          "decoded row by row");
    ReadWholeFile(path, scratch, header);
    image::RowResizer resizer(decoded, target, mode, dest);
    image::DecodeRows(scratch.encoded, plan, path,
                      [&](std::span<const uint8_t> row) { resizer.AddRow(row); });
    resizer.Finish();
    return;
  }
  Cover(scratch, path, header.file_bytes, plan.bytes(), whole - plan.bytes(),
        SizeText(plan.width, plan.height) + " pixels decoded whole");
  ReadWholeFile(path, scratch, header);
  scratch.decoded.resize(static_cast<size_t>(plan.bytes()));
  image::Decode(scratch.encoded, plan, path, scratch.decoded);
  image::ResizeInto(scratch.decoded, decoded, target, mode, dest);
}

}  // namespace h5feed::converters
