#pragma once
// The SampleSource of h5feed.write: the samples of any Python dataset, as payloads
// (sample_payload.h) that the interpreter's thread puts into a PayloadQueue in the stored order
// while the conversion's threads take them, decode, resize and store them without the GIL.
// It never calls into Python.
//
// Each payload's image becomes the stored image as `convert imagefolder` makes one from a file:
//   - a path is read and decoded by the image folder's reader (image_file_reader.h: PIL-equal
//     RGB, JPEG at the smallest DCT scale the stored size allows, within the memory budget);
//   - encoded bytes are decoded by the same reader, as an element of an HDF5 file is;
//   - pixels are copied, or resized by the same resize (image/resize.h) the decoded files go
//     through, so a PNG's pixels handed over decoded are stored exactly as its file would be.
// With a size, every image is fitted to it (a version 1 file); without one, each is stored at
// its own size with its longer side capped at max_side (a version 2 file): the source cannot
// see every image before the conversion sizes its chunks, so it never guesses that they share
// one size.
//
// A mask, boxes and box labels are moved with their image when it is resized
// (converters/sources/placed_fields.h).
//
// Thread-safety: Read() may be called from many threads at once, as SampleSource requires.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/option_names.h"
#include "image/resize.h"
#include "memory_budget.h"
#include "payload_queue.h"
#include "sample_source.h"
#include "sources/image_file_reader.h"

namespace h5feed::python {

struct PythonSourceOptions {
  int64_t count = 0;  // the dataset's samples
  // The stored size of every image (a version 1 file), fitted by `resize`; empty: each at its
  // own size, capped at max_side (which must then be positive).
  std::optional<converters::image::Size> size;
  converters::image::ResizeMode resize = converters::image::ResizeMode::kCrop;
  uint8_t mask_fill = 0;  // a mask's border under resize kPad (converters::FitOptions')
  int max_side = 0;
  int channels = 3;  // 1 or 3: the first sample's; encoded images and paths need 3
  int64_t max_pixels = 0;
  std::vector<std::string> classes;  // ignored unless labelled
  // The file's fields (h5feed/field.h), a value of each in every payload, in this order.
  std::vector<FieldSpec> fields;
  bool labelled = true;      // false: the payloads' labels are ignored, the file has none
  OptionNames option_names;  // how errors name the options: h5feed.write's keywords
};

class PythonSampleSource final : public converters::SampleSource {
 public:
  // `budget` and `queue` must outlive the source. Throws Error(kInvalidArgument) for options
  // that describe no stored image.
  PythonSampleSource(PythonSourceOptions options, converters::MemoryBudget& budget,
                     PayloadQueue& queue);

  std::string_view kind() const override { return "python"; }
  int64_t count() const override { return options_.count; }
  ImageShape shape() const override;
  std::vector<std::string> classes() const override { return options_.classes; }
  std::vector<FieldSpec> fields() const override { return options_.fields; }
  bool labelled() const override { return options_.labelled; }
  bool own_size() const override { return !options_.size; }
  int64_t max_side() const override { return options_.size ? 0 : options_.max_side; }
  converters::MemoryBudget* memory_budget() const override { return &budget_; }
  // The image's path for a sample that gave one, else the row (its dataset index) as text: what
  // /sources records.
  std::string name(int64_t i) const override;

  // Takes row i's payload from the queue (waiting for it) and stores its image. Throws
  // Error(kCorrupt) for an image that does not decode (the conversion skips it unless strict),
  // Error(kCancelled) once the queue is closed without it.
  converters::SampleInfo Read(int64_t i, converters::SampleDestination& dest) const override;

 private:
  // Decodes a path or encoded bytes into `dest`; returns the stored size.
  converters::image::Size Decode(int64_t i, const SamplePayload& payload,
                                 converters::SampleDestination& dest) const;
  // Decodes a path or encoded bytes as RGB into the memory `memory_for` gives for the stored
  // size.
  void DecodeRgb(
      int64_t i, const SamplePayload& payload,
      const std::function<std::span<uint8_t>(converters::image::Size)>& memory_for) const;
  // Copies or resizes decoded pixels into `dest`; returns the stored size.
  converters::image::Size StorePixels(int64_t i, const SamplePayload& payload,
                                      converters::SampleDestination& dest) const;

  PythonSourceOptions options_;
  bool geometric_ = false;  // a mask, boxes or box labels among the fields: moved with the image
  converters::MemoryBudget& budget_;
  PayloadQueue& queue_;
  converters::ImageFileReader reader_;
  // The paths of rows whose image failed, for name(): the payload is gone by then.
  mutable std::mutex failed_mutex_;
  mutable std::unordered_map<int64_t, std::string> failed_paths_;  // guarded by failed_mutex_
};

}  // namespace h5feed::python
