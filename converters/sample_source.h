#pragma once
// A SampleSource is whatever a conversion reads from: an image folder, CIFAR binaries, a NumPy
// array, an existing HDF5 file. It knows how many samples there are, their stored shape and
// their classes, and writes sample i, already at its stored size, into memory the conversion
// owns (a place in the chunk being assembled) that it asks for with the sample's shape
// (sample_destination.h).
//
// Whether the samples share one shape is a property of the source, not a second way to read
// them: a source of one shape asks every time for shape(); a source of images at their own
// size (own_size(): an image folder without --size whose images differ in size) asks for each
// sample's, and the conversion writes a version 2 "flat" file.
//
// Beside its image, a sample may carry a label (unless the source says its samples have none,
// labelled()) and one value per field the source declares (fields(): attributes, landmarks, a
// caption; h5feed/field.h). The conversion stores them with the image, in the same row.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/field.h"
#include "h5feed/image_shape.h"
#include "h5feed/skipped_source.h"
#include "h5feed/writer.h"
#include "sample_destination.h"

namespace h5feed::converters {

class MemoryBudget;

struct SampleInfo {
  int64_t label = 0;   // ignored when the source is not labelled()
  std::string source;  // where it came from, e.g. "cat/001.jpg" or "data_batch_1.bin#42"
  // One value per entry of SampleSource::fields(), in that order: an array's row_bytes()
  // little-endian bytes (elements row-major, a bool 0 or 1), a bytes row's bytes, a text row's
  // UTF-8 without NUL (h5feed/field.h, FieldColumn). A conversion refuses a sample whose values
  // do not fit the specs (Error kInvalidArgument naming it and the field): never skipped.
  std::vector<std::vector<uint8_t>> fields = {};
};

// Thread-safety: Read() may be called from many threads at once, in any order.
class SampleSource {
 public:
  virtual ~SampleSource() = default;

  virtual std::string_view kind() const = 0;  // "imagefolder", "cifar", "npy", "hdf5"
  virtual int64_t count() const = 0;          // samples offered, in source order
  // Every sample's stored shape; with own_size(), the largest (in bytes) any may have.
  virtual ImageShape shape() const = 0;
  virtual std::vector<std::string> classes() const = 0;  // label i names classes()[i]
  // The fields each sample carries a value of (SampleInfo::fields), in the file's order; each
  // must pass CheckFieldSpec, their names distinct. Empty: none, a file without fields.
  virtual std::vector<FieldSpec> fields() const { return {}; }
  // false: the samples have no labels (self-supervised data): SampleInfo::label and
  // classes() are ignored, and the file is written without /labels (`labelled` = 0).
  virtual bool labelled() const { return true; }

  // Writes sample i (0 <= i < count()) into the memory `dest` gives for its stored shape
  // (shape() unless own_size()), and says what it is. Throws Error(kCorrupt) for a sample that
  // is broken but may be skipped (a damaged image); any other error stops the conversion.
  virtual SampleInfo Read(int64_t i, SampleDestination& dest) const = 0;

  // Whether each sample is stored at its own shape: shape() then only bounds them.
  virtual bool own_size() const { return false; }
  // With own_size(): the cap on a stored image's longer side it applied; 0 = none.
  virtual int64_t max_side() const { return 0; }

  // The classes of the box labels of a source whose boxes field has labels with names (COCO's
  // categories; h5feed/writer.h): written to the file beside them. Empty: no such table.
  virtual BoxClasses box_classes() const { return {}; }

  // What the source knows of its boxes fields' coordinates, given to its Writer
  // (h5feed/writer.h): kPixels only for boxes read as pixels from an input that holds them so
  // (COCO's bbox, an h5feed file's boxes); kChecked for values a user gives.
  virtual BoxCoordinates box_coordinates() const { return BoxCoordinates::kChecked; }

  // The inputs skipped by the conversion that made this source (an h5feed file's skipped
  // lists): a whole conversion records them in its file before its own, so that rechunking
  // keeps what the file says it lacks. Not skipped by this conversion: not in its report.
  virtual std::vector<SkippedSource> skipped_earlier() const { return {}; }

  // The name a skipped sample i is recorded under (SampleInfo::source of a readable one).
  virtual std::string name(int64_t i) const { return "sample " + std::to_string(i); }

  // Whether reading in source order is much faster than random order (an HDF5 source whose
  // chunks are compressed). A conversion then keeps the source order unless told otherwise.
  virtual bool prefers_sequential_reads() const { return false; }

  // What the user should know about how the input is read, one line each (an HDF5 dataset
  // not carried as a field, and why): the conversion's report lists them.
  virtual std::vector<std::string> notes() const { return {}; }

  // The memory budget Read() decodes within (memory_budget.h), which the conversion shares for
  // its own buffers; null for a source that needs no memory beyond `dest`.
  virtual MemoryBudget* memory_budget() const { return nullptr; }
};

}  // namespace h5feed::converters
