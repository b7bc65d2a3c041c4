// The two kinds of sweep input (file_kind.h).

#include "file_kind.h"

#include <algorithm>
#include <utility>

#include "enum_names.h"
#include "h5feed/writer.h"
#include "sources/hdf5_source.h"
#include "sources/own_size_file_source.h"

namespace h5feed::bench {
namespace {

// HDF5 metadata, the chunk table, the labels (8 bytes each) and the sources of a variant: a
// generous allowance per image, and 16 MiB.
uint64_t Allowance(int64_t samples, uint64_t per_image) {
  return static_cast<uint64_t>(samples) * per_image + (uint64_t{16} << 20);
}

// The input's compression as its variant takes it: a filter h5feed does not write, as none.
Compression VariantCompression(const index::DatasetIndex& input) {
  const std::string stored = CompressionOf(input);
  return Compression::Parse(stored == "other" ? "none" : stored);
}

// Chunks of K images of one size.
class OneSizeFile final : public FileKind {
 public:
  explicit OneSizeFile(const index::DatasetIndex& input)
      : FileKind(input, Stored(input)),
        samples_(input.samples),
        sample_bytes_(input.sample_bytes()),
        default_chunk_samples_(DefaultChunkImages(input.shape, input.samples)),
        dataset_(input.dataset) {}

  std::string OptionsProblem(const GivenOptions& given, const std::string& file) const override {
    if (!given.encodings_or_chunk_bytes) return {};
    return "--encodings and --chunk-bytes sweep files of images at their own size (format "
           "version 2); " +
           file + " stores one image size: sweep --chunks and --compression";
  }

  // A chunk of more images than the file holds is one chunk of them all (as `h5feed rechunk`
  // writes it): such sizes make one variant, measured once.
  std::vector<FileVariant> Variants(const SweepGrid& grid) const override {
    std::vector<FileVariant> files;
    for (int64_t chunk : grid.chunks) {
      for (const Compression& compression : grid.compressions) {
        const FileVariant variant{std::min(chunk, samples_), compression};
        if (std::find(files.begin(), files.end(), variant) == files.end()) {
          files.push_back(variant);
        }
      }
    }
    return files;
  }

  std::string Note(const SweepGrid& grid) const override {
    std::string sizes;
    for (int64_t chunk : grid.chunks) {
      if (chunk > samples_) sizes += (sizes.empty() ? "" : ", ") + std::to_string(chunk);
    }
    if (sizes.empty()) return {};
    return "Chunks of " + sizes + " images hold more than the file's " + std::to_string(samples_) +
           ": each is one chunk of " + std::to_string(samples_) +
           " images, a variant measured once.";
  }

  SweepRun Defaults() const override { return DefaultRun(default_chunk_samples_); }

  // Chunks are padded to full size, and zstd can grow incompressible data by ~0.4%.
  uint64_t DiskBound(const SweepPlan& plan) const override {
    uint64_t largest = 0;
    for (const FileVariant& file : plan.files) {
      const int64_t chunks = (samples_ + file.chunk_samples - 1) / file.chunk_samples;
      const double pixels = double(chunks) * double(file.chunk_samples) * double(sample_bytes_);
      const double stored = file.compression.kind == Compression::Kind::kNone
                                ? pixels
                                : pixels * 1.004 + chunks * 64.0;
      largest = std::max(largest, static_cast<uint64_t>(stored));
    }
    return largest + Allowance(samples_, 512);
  }

  std::unique_ptr<converters::SampleSource> OpenImages(const std::string& path) const override {
    converters::Hdf5SourceOptions options;
    options.images = dataset_;
    return converters::OpenHdf5(path, options);
  }

 private:
  static FileVariant Stored(const index::DatasetIndex& input) {
    return FileVariant{input.chunk_samples, VariantCompression(input)};
  }

  int64_t samples_;
  int64_t sample_bytes_;
  int64_t default_chunk_samples_;
  std::string dataset_;  // the input's image dataset, as its index chose it (or was told)
};

// Chunks of C bytes of whole images, each at its own size and in its own encoding.
class OwnSizeFile final : public FileKind {
 public:
  explicit OwnSizeFile(const index::DatasetIndex& input)
      : FileKind(input, Stored(input)),
        samples_(input.samples),
        encoding_(input.encoding),
        largest_image_bytes_(input.sample_bytes()),
        pixel_bytes_(input.pixel_bytes()),
        one_size_(input.samples > 0 && input.holds_one_size()) {}

  // Images that all have one size are read as they are without --augment, as `h5feed bench`
  // reads them (loader/reading_plan.h), and every variant, rewritten from them at their stored
  // sizes, holds that one size too.
  std::string OptionsProblem(const GivenOptions& given, const std::string& file) const override {
    if (!given.augment && !one_size_) {
      return file +
             " stores its images at their own sizes, not all of one: every run must crop them "
             "to one size; give --augment, e.g. --augment rrc=224,flip";
    }
    if (given.chunks_or_compression) {
      return file +
             " stores its images at their own sizes, in chunks of a number of bytes: sweep "
             "--encodings and --chunk-bytes instead of --chunks and --compression";
    }
    return {};
  }

  // The variant of the input's encoding and C is the input, with its compression.
  std::vector<FileVariant> Variants(const SweepGrid& grid) const override {
    std::vector<StoredEncoding> encodings = grid.encodings;
    if (encodings.empty()) {
      encodings = {stored().encoding};
      for (const char* other : {"raw", "jpeg:90"}) {
        const StoredEncoding encoding = StoredEncoding::Parse(other);
        if (!(encoding == stored().encoding)) encodings.push_back(encoding);
      }
    }
    const std::vector<int64_t> chunk_bytes =
        grid.chunk_bytes.empty() ? std::vector<int64_t>{stored().chunk_bytes} : grid.chunk_bytes;
    std::vector<FileVariant> files;
    for (int64_t bytes : chunk_bytes) {
      for (const StoredEncoding& encoding : encodings) {
        const bool is_input = encoding == stored().encoding && bytes == stored().chunk_bytes;
        files.push_back(FileVariant{
            encoding, bytes, is_input ? stored().compression : encoding.DefaultCompression()});
      }
    }
    return files;
  }

  // `h5feed convert`'s defaults: raw, chunks of 4 MiB, zstd:3.
  SweepRun Defaults() const override {
    SweepRun run = DefaultRun(0);
    const StoredEncoding raw;
    run.file = FileVariant{raw, kDefaultChunkBytes, raw.DefaultCompression()};
    return run;
  }

  // A variant's stored images are at most their pixels (a JPEG of a photo is smaller), and an
  // uncompressed chunk's zero tail can at most double them (packing starts a new chunk only
  // for an image that does not fit, so every full chunk is more than half full when images
  // are at most half a chunk; the bound allows for larger ones with the chunk size once more).
  uint64_t DiskBound(const SweepPlan& plan) const override {
    uint64_t largest = 0;
    for (const FileVariant& file : plan.files) {
      const double chunk = static_cast<double>(std::max(file.chunk_bytes, largest_image_bytes_));
      const double pixels = static_cast<double>(pixel_bytes_);
      const double stored = file.compression.kind == Compression::Kind::kNone
                                ? 2.0 * pixels + 2 * chunk
                                : pixels * 1.004 + 2 * chunk;
      largest = std::max(largest, static_cast<uint64_t>(stored));
    }
    // The per-image table (shapes, offsets, sizes, encodings, checksums) beside the labels.
    return largest + Allowance(samples_, 1024);
  }

  // A JPEG written as JPEG again is a second generation (own_size_file_source.h).
  std::unique_ptr<converters::SampleSource> OpenImages(const std::string& path) const override {
    return converters::OpenOwnSizeFile(path);
  }

  std::string Note(const SweepGrid&) const override {
    return "The input stores its images at their own sizes (" + encoding_ +
           "): its variants are encodings x chunk bytes, each made by decoding the input's "
           "images at their stored sizes and writing them again. The input's own encoding and "
           "chunk size are measured on the input itself; any other JPEG variant made from a "
           "JPEG input is a second generation of JPEG compression.";
  }

  std::string NoReferenceLoaders() const override {
    return "No reference loaders (--compare-h5py): they read a file of one image size, and "
           "this one stores its images at their own sizes";
  }

 private:
  static FileVariant Stored(const index::DatasetIndex& input) {
    return FileVariant{StoredEncoding::Parse(input.encoding.empty() ? "raw" : input.encoding),
                       input.chunk_bytes(), VariantCompression(input)};
  }

  int64_t samples_;
  std::string encoding_;         // as the converter was asked
  int64_t largest_image_bytes_;  // H x W x C of the largest image
  uint64_t pixel_bytes_;         // the sum of the images' H x W x C
  bool one_size_;                // every image has one size (DatasetIndex::holds_one_size)
};

}  // namespace

std::string CompressionOf(const index::DatasetIndex& input) {
  if (input.filters.empty()) return Compression{Compression::Kind::kNone, 0}.ToString();
  for (const index::FilterStep& f : input.filters) {
    if (f.kind != index::FilterKind::kZstd && f.kind != index::FilterKind::kDeflate) continue;
    const Compression::Kind kind =
        f.kind == index::FilterKind::kZstd ? Compression::Kind::kZstd : Compression::Kind::kDeflate;
    Compression compression = Compression::Parse(NameOf(kind));  // at the kind's default level
    if (!f.client_data.empty()) compression.level = static_cast<int>(f.client_data[0]);
    return compression.ToString();
  }
  return "other";
}

FileKind::FileKind(const index::DatasetIndex& input, FileVariant stored)
    : stored_(std::move(stored)),
      stored_exactly_(input.is_h5feed && CompressionOf(input) != "other") {}

std::unique_ptr<const FileKind> FileKind::Of(const index::DatasetIndex& input) {
  if (input.stored_layout == StoredLayout::kFlat) return std::make_unique<OwnSizeFile>(input);
  return std::make_unique<OneSizeFile>(input);
}

}  // namespace h5feed::bench
