#pragma once
// Reads the binary versions of CIFAR-10 and CIFAR-100 (www.cs.toronto.edu/~kriz/cifar.html).
//
// CIFAR-10 (cifar-10-batches-bin/): data_batch_1.bin .. data_batch_5.bin (train) and
// test_batch.bin (test); each record is 1 label byte and 3072 pixel bytes. CIFAR-100
// (cifar-100-binary/): train.bin and test.bin; each record is a coarse label byte, a fine label
// byte and 3072 pixel bytes. Pixels are planar: 1024 red, 1024 green, 1024 blue, each a
// row-major 32x32 plane; Read() writes them interleaved (32, 32, 3). Class names come from
// batches.meta.txt, fine_label_names.txt or coarse_label_names.txt (one per line, blank lines
// skipped); without that file the classes are "0".."9" ("0".."99", "0".."19").
//
// The files are read a record at a time, never loaded whole (input_file.h). Samples are numbered in
// file order (data_batch_1 first); each is named "<file>#<record>", e.g. "data_batch_1.bin#123".

#include <memory>
#include <string>

#include "enum_names.h"
#include "sample_source.h"

namespace h5feed::converters {

struct CifarOptions {
  enum class Split { kTrain, kTest } split = Split::kTrain;
  // CIFAR-100 only: the 100 fine classes or the 20 coarse superclasses. Asking CIFAR-10 for
  // coarse labels is an Error(kInvalidArgument).
  enum class Labels { kFine, kCoarse } labels = Labels::kFine;
};

}  // namespace h5feed::converters

namespace h5feed {

// The words of `h5feed convert cifar --split / --labels` and convert_cifar(split=, labels=).
template <>
struct EnumNames<converters::CifarOptions::Split> {
  using Split = converters::CifarOptions::Split;
  static constexpr std::string_view what = "split";
  static constexpr NamedValue<Split> names[] = {{Split::kTrain, "train"}, {Split::kTest, "test"}};
};

template <>
struct EnumNames<converters::CifarOptions::Labels> {
  using Labels = converters::CifarOptions::Labels;
  static constexpr std::string_view what = "labels";
  static constexpr NamedValue<Labels> names[] = {{Labels::kFine, "fine"},
                                                 {Labels::kCoarse, "coarse"}};
};

}  // namespace h5feed

namespace h5feed::converters {

// Opens the CIFAR binaries in `dir`: the folder holding the .bin files, or the folder the
// archive was extracted into (holding cifar-10-batches-bin/ or cifar-100-binary/).
// Throws Error(kNotFound) naming the files expected when there are none or some are missing,
// Error(kCorrupt) when a file is empty (a failed download) or its size is not a whole number
// of records (truncated), or a class name file holds the wrong number of names. A record whose
// label is out of range is reported by Read() as Error(kCorrupt), so it is skipped like a
// damaged image.
std::unique_ptr<SampleSource> OpenCifar(const std::string& dir, const CifarOptions& options);

}  // namespace h5feed::converters
