#include "python_sample_source.h"

#include <cstring>
#include <span>
#include <string_view>
#include <utility>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "sources/placed_fields.h"

namespace h5feed::python {
namespace {

namespace image = converters::image;

bool operator==(image::Size a, image::Size b) { return a.height == b.height && a.width == b.width; }

// How messages name row i: as the user's code would, by its dataset index.
std::string RowName(int64_t i) { return "dataset[" + std::to_string(i) + "]"; }

// The resize works on RGB pixels; a one-channel image goes through it as RGB of three equal
// channels, every channel resized alike, and comes back as one.
void ResizeGray(std::span<const uint8_t> src, image::Size from, image::Size to,
                image::ResizeMode mode, std::span<uint8_t> dest) {
  std::vector<uint8_t> rgb(src.size() * 3);
  for (size_t p = 0; p < src.size(); ++p) rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = src[p];
  std::vector<uint8_t> resized(dest.size() * 3);
  image::ResizeInto(rgb, from, to, mode, resized);
  for (size_t p = 0; p < dest.size(); ++p) dest[p] = resized[3 * p];
}

// PIL's conversions between its modes "RGB" and "L" (Convert.c): gray to RGB repeats the
// value; RGB to gray is ITU-R 601-2 luma, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16.
void ConvertChannels(std::span<const uint8_t> src, int from, std::span<uint8_t> dest, int to) {
  const size_t pixels = src.size() / static_cast<size_t>(from);
  if (from == 1 && to == 3) {
    for (size_t p = 0; p < pixels; ++p) dest[3 * p] = dest[3 * p + 1] = dest[3 * p + 2] = src[p];
  } else if (from == 3 && to == 1) {
    for (size_t p = 0; p < pixels; ++p) {
      const uint32_t luma =
          19595u * src[3 * p] + 38470u * src[3 * p + 1] + 7471u * src[3 * p + 2] + 0x8000u;
      dest[p] = static_cast<uint8_t>(luma >> 16);
    }
  } else {
    std::memcpy(dest.data(), src.data(), src.size());
  }
}

}  // namespace

PythonSampleSource::PythonSampleSource(PythonSourceOptions options,
                                       converters::MemoryBudget& budget, PayloadQueue& queue)
    : options_(std::move(options)),
      budget_(budget),
      queue_(queue),
      reader_(budget, options_.max_pixels, options_.option_names) {
  converters::CheckImageLimits(options_.max_pixels, options_.max_side, options_.option_names);
  for (const FieldSpec& field : options_.fields) geometric_ = geometric_ || IsGeometric(field.kind);
  if (options_.channels != 1 && options_.channels != 3) {
    throw MakeError(ErrorCode::kInvalidArgument, "images must have 1 or 3 channels, not {}",
                    options_.channels);
  }
  if (options_.size && (options_.size->height <= 0 || options_.size->width <= 0)) {
    throw Error(ErrorCode::kInvalidArgument, "size must be positive, as (height, width)");
  }
  if (!options_.size && options_.max_side <= 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "without size, each image is stored at its own size, and the chunks are sized by "
                "the largest image max_side allows: a dataset's images are not seen before it is "
                "written, so give max_side (a positive cap on the longer side) or size");
  }
}

ImageShape PythonSampleSource::shape() const {
  if (options_.size) return {options_.size->height, options_.size->width, options_.channels};
  return {options_.max_side, options_.max_side, options_.channels};
}

std::string PythonSampleSource::name(int64_t i) const {
  std::lock_guard lock(failed_mutex_);
  const auto found = failed_paths_.find(i);
  return found != failed_paths_.end() ? found->second : std::to_string(i);
}

converters::SampleInfo PythonSampleSource::Read(int64_t i,
                                                converters::SampleDestination& dest) const {
  SamplePayload payload = queue_.Take(i);
  const bool is_path = payload.image == SamplePayload::Image::kPath;
  std::string path = is_path ? std::string(payload.bytes.begin(), payload.bytes.end()) : "";
  image::Size stored;
  try {
    stored = payload.image == SamplePayload::Image::kPixels ? StorePixels(i, payload, dest)
                                                            : Decode(i, payload, dest);
  } catch (const Error&) {
    if (is_path) {
      std::lock_guard lock(failed_mutex_);
      failed_paths_.emplace(i, path);
    }
    throw;
  }
  if (geometric_) {
    // The payload's height and width are the image's own size (h5feed/_write_samples.py reads
    // an encoded image's header for them), which its mask has.
    converters::PlaceGeometricFields("dataset[" + std::to_string(i) + "]", options_.fields,
                                     {payload.height, payload.width}, stored,
                                     options_.size ? options_.resize : image::ResizeMode::kStretch,
                                     options_.mask_fill, payload.fields);
  }
  converters::SampleInfo info;
  info.label = payload.label;
  info.source = is_path ? std::move(path) : std::to_string(i);
  info.fields = std::move(payload.fields);
  return info;
}

image::Size PythonSampleSource::Decode(int64_t i, const SamplePayload& payload,
                                       converters::SampleDestination& dest) const {
  // The decoders deliver RGB. A file of one-channel images takes it converted as PIL converts
  // to "L", from RGB pixels of the stored size.
  std::vector<uint8_t> rgb;
  std::span<uint8_t> stored;
  image::Size stored_size;
  auto memory_for = [&](image::Size size) {
    stored_size = size;
    if (options_.channels == 3) return dest.MemoryFor({size.height, size.width, 3});
    stored = dest.MemoryFor({size.height, size.width, 1});
    rgb.resize(stored.size() * 3);
    return std::span<uint8_t>(rgb);
  };
  DecodeRgb(i, payload, memory_for);
  if (options_.channels == 1) ConvertChannels(rgb, 3, stored, 1);
  return stored_size;
}

void PythonSampleSource::DecodeRgb(
    int64_t i, const SamplePayload& payload,
    const std::function<std::span<uint8_t>(image::Size)>& memory_for) const {
  if (payload.image == SamplePayload::Image::kPath) {
    const std::string path(payload.bytes.begin(), payload.bytes.end());
    if (options_.size) {
      reader_.Read(path, *options_.size, options_.resize, memory_for(*options_.size));
    } else {
      reader_.ReadAtOwnSize(path, options_.max_side, memory_for);
    }
    return;
  }
  // The reader takes the bytes into memory it leases from the budget, as an HDF5 element's.
  const std::span<const uint8_t> bytes = payload.bytes;
  const converters::ImageFileReader::Fetch fetch =
      [&](const converters::ImageFileReader::Place& place) {
        uint8_t* where = place(static_cast<int64_t>(bytes.size()));
        if (where == nullptr) return false;
        std::memcpy(where, bytes.data(), bytes.size());
        return true;
      };
  const std::string name = RowName(i);
  if (options_.size) {
    reader_.Read(name, fetch, *options_.size, options_.resize, memory_for(*options_.size));
  } else {
    reader_.ReadAtOwnSize(name, fetch, options_.max_side, memory_for);
  }
}

image::Size PythonSampleSource::StorePixels(int64_t i, const SamplePayload& payload,
                                            converters::SampleDestination& dest) const {
  const int channels = options_.channels;
  const image::Size from{payload.height, payload.width};
  if ((payload.channels != 1 && payload.channels != 3) ||
      static_cast<int64_t>(payload.bytes.size()) !=
          int64_t{from.height} * from.width * payload.channels) {
    throw MakeError(ErrorCode::kInternal, "{}: {} bytes of pixels for a {}x{}x{} image", RowName(i),
                    payload.bytes.size(), from.height, from.width, payload.channels);
  }
  // An image of the other channel count is converted first, as PIL converts between "L" and
  // "RGB" (the decoders deliver a gray file as RGB of equal channels, as this does).
  std::vector<uint8_t> converted;
  std::span<const uint8_t> pixels = payload.bytes;
  if (payload.channels != channels) {
    converted.resize(static_cast<size_t>(from.height) * from.width * channels);
    ConvertChannels(payload.bytes, payload.channels, converted, channels);
    pixels = converted;
  }
  const image::Size to =
      options_.size ? *options_.size : image::CappedSize(from, options_.max_side);
  const image::ResizeMode mode = options_.size ? options_.resize : image::ResizeMode::kStretch;
  const std::span<uint8_t> stored = dest.MemoryFor({to.height, to.width, channels});
  if (to == from) {
    std::memcpy(stored.data(), pixels.data(), pixels.size());
    return to;
  }
  // The resize's scratch (and a one-channel image's RGB copies) is leased as a decoder's is.
  int64_t scratch = image::ResizeScratchBytes(from, to, mode);
  if (channels == 1) scratch += 3 * (static_cast<int64_t>(pixels.size()) + stored.size());
  if (!budget_.fits(scratch)) {
    throw MakeError(ErrorCode::kCorrupt,
                    "refused {}: resizing its {}x{} image to {}x{} needs {}, more than the {} that "
                    "memory_limit {} leaves for decoding; raise memory_limit to write it",
                    RowName(i), from.width, from.height, to.width, to.height, ByteSize(scratch),
                    ByteSize(budget_.lendable()), ByteSize(budget_.limit()));
  }
  const converters::MemoryBudget::Lease lease = budget_.Acquire(scratch);
  if (channels == 3) {
    image::ResizeInto(pixels, from, to, mode, stored);
  } else {
    ResizeGray(pixels, from, to, mode, stored);
  }
  return to;
}

}  // namespace h5feed::python
