#pragma once
// The per-row datasets of an HDF5 file beside its images and labels, carried as fields
// (docs/format.md, "Fields") by the sources `h5feed rechunk` reads (hdf5_source.h,
// encoded_hdf5_source.h): CelebA's attributes and landmarks, captions, ids.
//
// By default every dataset whose first dimension is the number of images is one, but the
// file's own (the images and labels read, the datasets of h5feed's schema: classes, sources,
// the tables of an h5feed file): numeric arrays as arrays of shape dims[1:] (a (N,) dataset a
// scalar), variable-length strings as text, variable-length uint8 and fixed-length byte
// strings as bytes (hdf5/foreign_field.h). The fields of an h5feed file come first, in its
// order; the rest in name order. A dataset that cannot be a field (a compound type, a scalar,
// another first dimension) is left out with a note; one whose name a field cannot take (a
// reserved name, one in a group: CheckFieldSpec) stops the open, since leaving it out
// silently would lose data: the message says to choose with Hdf5FieldChoice.
//
// Thread-safety: Read() may be called from many threads; each takes hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/foreign_field.h"
#include "hdf5/handle.h"

namespace h5feed::converters {

// Which datasets become fields: nullopt, every one that can (above); an empty list, none;
// else exactly these datasets (names with or without the leading '/'), in this order.
using Hdf5FieldChoice = std::optional<std::vector<std::string>>;

class Hdf5Fields {
 public:
  // Opens the fields of `file` (named `path`; `datasets` is its ListDatasets) for `rows`
  // images, leaving out `taken` (the datasets read as images and labels). Call under
  // hdf5::Lock(). Throws Error: kNotFound for a chosen dataset that does not exist (listing
  // those there are), kInvalidArgument for one that is the images or labels, chosen twice,
  // not of `rows` rows, or named as no field may be (by default: any dataset so named,
  // suggesting a choice), kUnsupported for one of a type no field holds.
  static Hdf5Fields Open(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets, int64_t rows,
                         const std::vector<std::string>& taken, const Hdf5FieldChoice& choice,
                         const std::string& path);

  Hdf5Fields() = default;
  Hdf5Fields(Hdf5Fields&&) noexcept = default;
  Hdf5Fields& operator=(Hdf5Fields&&) noexcept = default;

  const std::vector<FieldSpec>& specs() const { return specs_; }
  // The datasets left out, one line each: "meta (compound (100,)): a compound type".
  const std::vector<std::string>& notes() const { return notes_; }

  // Row `row`'s value of every field, in specs() order (SampleInfo::fields). Takes
  // hdf5::Lock(). Throws Error(kCorrupt) when a value cannot be read (a damaged chunk: the
  // conversion skips the sample), kIo when the operating system failed the read.
  std::vector<std::vector<uint8_t>> Read(int64_t row) const;

  // Closes the datasets; call under hdf5::Lock(), before the file is closed.
  void Close();

 private:
  struct Field {
    hdf5::Dataset dataset;
    hdf5::ForeignFieldType type;
  };

  std::string path_;
  std::vector<FieldSpec> specs_;
  std::vector<Field> fields_;  // one per spec
  std::vector<std::string> notes_;
};

}  // namespace h5feed::converters
