#pragma once
// What kind of file the sweep's input is, as far as its variants go: the one place of the
// sweep that knows how a file of images of one size (format version 1, or any uint8 image
// dataset) and a file of images at their own size (format version 2) differ. The command line,
// the plan, the runner and the rechunked files ask it instead of asking the layout:
//
//                   one image size                   images at their own size
//   variants        --chunks x --compression          --encodings x --chunk-bytes (default:
//                                                     the input's encoding, raw and jpeg:90 x
//                                                     the input's C), each compressed as
//                                                     `h5feed convert` compresses the encoding
//                                                     by default, but the input's own variant
//   defaults        the default chunk for the image   raw, chunks of 4 MiB, zstd:3
//                   shape, zstd:3
//   disk bound      chunks padded to K images         packing's zero tails (at most 2 x)
//   rewritten from  its pixels (sources/hdf5_source)  its images decoded at their stored
//                                                     sizes (sources/own_size_file_source)
//   runs            as they are                       must crop to one size (--augment),
//                                                     but as they are where all have one
//   h5py loaders    run with --compare-h5py           not run: they read one image size
//
// Thread-safety: immutable once made; it keeps what it needs of the index, not the index.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/dataset_index.h"
#include "sample_source.h"
#include "sweep_plan.h"

namespace h5feed::bench {

// The input's compression in the sweep's words (Compression::ToString: "none", "zstd:3",
// "gzip:6"), or "other" for a filter h5feed does not write.
std::string CompressionOf(const index::DatasetIndex& input);

// The sweep's options that only one kind of file takes, or that one kind needs, as given.
struct GivenOptions {
  bool chunks_or_compression = false;     // --chunks or --compression on the command line
  bool encodings_or_chunk_bytes = false;  // --encodings or --chunk-bytes
  bool augment = false;                   // --augment
};

class FileKind {
 public:
  // The kind of `input`, an index as opened.
  static std::unique_ptr<const FileKind> Of(const index::DatasetIndex& input);
  virtual ~FileKind() = default;

  // How the input itself is stored, as a variant (a compression h5feed does not write: none).
  const FileVariant& stored() const { return stored_; }
  // Whether `variant` is exactly the input (an h5feed file stored as `variant`), so that
  // rechunking it would only copy it.
  bool IsInput(const FileVariant& variant) const { return stored_exactly_ && variant == stored_; }

  // What is wrong with the options `given` for this kind of file, in words that name the input
  // `file` ("FILE" on the command line); empty when nothing is.
  virtual std::string OptionsProblem(const GivenOptions& given, const std::string& file) const = 0;
  // The grid's variants of this file, in the order they are made.
  virtual std::vector<FileVariant> Variants(const SweepGrid& grid) const = 0;
  // h5feed's defaults for this file (sweep_plan.h's DefaultRun, its file variant this kind's).
  virtual SweepRun Defaults() const = 0;
  // The most disk one variant of `plan` can take: the sweep holds one variant at a time.
  virtual uint64_t DiskBound(const SweepPlan& plan) const = 0;
  // The input's images, as every variant is rewritten from them; `path` is the input.
  virtual std::unique_ptr<converters::SampleSource> OpenImages(const std::string& path) const = 0;
  // What the report says of this kind of input swept over `grid`; empty: nothing.
  virtual std::string Note(const SweepGrid& grid) const = 0;
  // Why the reference loaders (DataLoader + h5py) do not read the input; empty: they do.
  virtual std::string NoReferenceLoaders() const { return {}; }

 protected:
  FileKind(const index::DatasetIndex& input, FileVariant stored);

 private:
  FileVariant stored_;
  bool stored_exactly_ = false;  // an h5feed file whose compression is one h5feed writes
};

}  // namespace h5feed::bench
