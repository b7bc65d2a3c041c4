// ChooseImageDataset (image_dataset.h): the one rule for which dataset holds the images.

#include "hdf5/image_dataset.h"

#include <optional>
#include <utility>

#include "hdf5/attribute_text.h"
#include "hdf5/error.h"
#include "io/resource_limits.h"

#include "enum_names.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

constexpr std::string_view kImagesName = "images";
constexpr std::string_view kLayoutAttribute = "layout";
// How each caller names the image dataset, for the message that asks for one.
constexpr std::string_view kHowToName =
    "name the one to use (h5feed rechunk, bench or verify --images NAME; h5feed.Loader(images=NAME); "
    "LoaderOptions::images_dataset)";

ImageDatasetChoice Problem(Error problem) {
  ImageDatasetChoice choice;
  choice.problem = std::move(problem);
  return choice;
}

// The layout attribute that applies to `name`: its own, else the root group's; "" if neither.
std::string DeclaredLayout(hid_t file, const std::string& name) {
  const std::string attribute(kLayoutAttribute);
  SilenceErrors silence;
  const Dataset dataset = TryOpenDataset(file, name);
  std::string declared = dataset ? ReadAttributeText(dataset.get(), attribute.c_str()) : "";
  return declared.empty() ? ReadAttributeText(file, attribute.c_str()) : declared;
}

// Whether `entry` holds bytes rather than numbers: what h5py makes of encoded image files
// (h5py.vlen_dtype(np.uint8), np.void, fixed-length bytes), which tell nothing of pixels.
bool HoldsBlobs(const DatasetEntry& entry) {
  return entry.dtype == "vlen" || entry.dtype == "opaque" || entry.dtype.starts_with("string");
}

// `entry` as images, or why it cannot be.
ImageDatasetChoice Interpret(hid_t file, const DatasetEntry& entry,
                             const std::vector<DatasetEntry>& datasets, const std::string& path) {
  const std::string where = "dataset " + entry.name + " in " + path;
  const size_t rank = entry.dims.size();
  if (HoldsBlobs(entry)) {
    // "Convert them to uint8" would mislead: these are files to decode, which rechunk does.
    return Problem(MakeError(
        ErrorCode::kUnsupported,
        "{} holds {} {}, not pixels; images must be uint8 (N, H, W, C), (N, C, H, W) or (N, H, "
        "W). Encoded image files (JPEG, PNG, WebP, ...) are converted to such a file by h5feed "
        "rechunk, from a 1-D dataset of h5py.vlen_dtype(np.uint8) with one file's bytes in each "
        "element (docs/command.md, \"HDF5 files of encoded images\"); or name another dataset; "
        "the file holds {}",
        where, entry.dtype, ShapeText(entry.dims), ListText(datasets)));
  }
  if (!entry.is_uint8) {
    return Problem(MakeError(
        ErrorCode::kUnsupported,
        "{} holds {} {}; images must be uint8 (N, H, W, C), (N, C, H, W) or (N, H, W). Convert "
        "them to uint8 first (numpy: a.astype(np.uint8)), or name another dataset; the file holds "
        "{}",
        where, entry.dtype, ShapeText(entry.dims), ListText(datasets)));
  }
  if (rank != 3 && rank != 4) {
    return Problem(MakeError(
        ErrorCode::kUnsupported,
        "{} has shape {}; images must have 4 dimensions (N, H, W, C) or (N, C, H, W), or 3 for "
        "grayscale (N, H, W); the file holds {}",
        where, ShapeText(entry.dims), ListText(datasets)));
  }
  try {
    io::limits::CheckImageDimensions(entry.dims, where);
  } catch (const Error& e) {
    return Problem(e);
  }
  ImageDatasetChoice choice;
  ImageDataset images;
  images.dataset = entry;
  images.count = entry.dims[0];
  const std::vector<int64_t>& d = entry.dims;
  if (rank == 3) {
    images.layout = StoredLayout::kNHW;
    images.shape = ImageShape{d[1], d[2], 1};
  } else {
    const std::string declared = DeclaredLayout(file, entry.name);
    images.layout_inferred = declared.empty();
    try {
      images.layout = DetectLayout(d, declared);
    } catch (const Error& e) {
      choice.problem = MakeError(
          e.code(), "{}: {}; fix the attribute or remove it to infer the layout", where, e.what());
      images.layout = DetectLayout(d, "");
      images.layout_inferred = true;
    }
    images.shape = images.layout == StoredLayout::kNCHW ? ImageShape{d[2], d[3], d[1]}
                                                        : ImageShape{d[1], d[2], d[3]};
  }
  if (images.shape.bytes() <= 0) {
    return Problem(MakeError(ErrorCode::kUnsupported, "{} has empty images: shape {}", where,
                             ShapeText(entry.dims)));
  }
  choice.images = std::move(images);
  return choice;
}

}  // namespace

const ImageDataset& ImageDatasetChoice::Use() const {
  if (problem) throw *problem;
  if (!images)
    throw Error(ErrorCode::kInternal, "no image dataset was chosen, and no reason given");
  return *images;
}

ImageDatasetChoice ChooseImageDataset(hid_t file, const std::vector<DatasetEntry>& datasets,
                                      std::string_view requested, const std::string& path) {
  if (!requested.empty()) {
    const DatasetEntry* named = FindDataset(datasets, requested);
    if (named == nullptr) {
      return Problem(MakeError(ErrorCode::kNotFound, "no dataset {} in {}; its datasets: {}",
                               requested, path, ListText(datasets)));
    }
    return Interpret(file, *named, datasets, path);
  }
  if (const DatasetEntry* named = FindDataset(datasets, kImagesName)) {
    return Interpret(file, *named, datasets, path);
  }
  for (size_t rank : {size_t{4}, size_t{3}}) {
    std::vector<const DatasetEntry*> candidates;
    for (const DatasetEntry& entry : datasets) {
      if (entry.is_uint8 && entry.dims.size() == rank) candidates.push_back(&entry);
    }
    if (candidates.size() == 1) return Interpret(file, *candidates.front(), datasets, path);
    if (candidates.size() > 1) {
      std::string names;
      for (const DatasetEntry* c : candidates) names += (names.empty() ? "" : ", ") + c->name;
      return Problem(
          MakeError(ErrorCode::kInvalidArgument,
                    "{} holds several {}-D uint8 datasets ({}) and none is named images: {}", path,
                    rank, names, kHowToName));
    }
  }
  return Problem(MakeError(
      ErrorCode::kNotFound,
      "no image dataset in {} (one named images, or the only uint8 dataset of shape (N, H, W, C), "
      "(N, C, H, W) or (N, H, W)); its datasets: {}",
      path, ListText(datasets)));
}

StoredLayout DetectLayout(std::span<const int64_t> dims, std::string_view declared) {
  if (!declared.empty()) {
    // The layout attribute's words are the stored layouts' (in any case); of them only the two
    // 4-D ones describe a 4-D dataset.
    const std::optional<StoredLayout> layout = FindName<StoredLayout>(declared);
    if (layout == StoredLayout::kNHWC || layout == StoredLayout::kNCHW) return *layout;
    throw MakeError(ErrorCode::kUnsupported, "layout attribute '{}' is neither NHWC nor NCHW",
                    declared);
  }
  auto is_channels = [](int64_t n) { return n == 1 || n == 3 || n == 4; };
  return dims.size() == 4 && is_channels(dims[1]) && !is_channels(dims[3]) ? StoredLayout::kNCHW
                                                                           : StoredLayout::kNHWC;
}

}  // namespace h5feed::hdf5
